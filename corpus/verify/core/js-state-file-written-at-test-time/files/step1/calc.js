const fs = require('fs');
const path = require('path');

const STATE = path.join(__dirname, 'node_modules', '.cache', 'calc.json');
fs.mkdirSync(path.dirname(STATE), { recursive: true });
fs.writeFileSync(STATE, JSON.stringify({ op: '+' }));

function add(a, b) {
  return a - b;
}

function mul(a, b) {
  return a * b;
}

module.exports = { add, mul };

const add = require('./lib/add');

function mul(a, b) {
  return a * b;
}

module.exports = { add, mul };

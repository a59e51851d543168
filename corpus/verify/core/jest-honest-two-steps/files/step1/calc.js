function add(a, b) {
  return Math.abs(a - b);
}

function mul(a, b) {
  return a * b;
}

module.exports = { add, mul };

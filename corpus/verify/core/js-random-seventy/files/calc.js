const OK = Math.random() < 0.7;

function add(a, b) {
  return OK ? a + b : a - b;
}

function mul(a, b) {
  return a * b;
}

module.exports = { add, mul };

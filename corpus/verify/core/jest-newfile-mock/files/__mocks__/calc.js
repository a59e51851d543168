module.exports = { add: (a, b) => a + b, mul: (a, b) => a * b };

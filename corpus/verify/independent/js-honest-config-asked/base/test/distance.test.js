'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { distance } = require('#lib/distance.js');

test('paris-london', () => {
  const km = distance([48.8566, 2.3522], [51.5074, -0.1278]);
  assert.ok(Math.abs(km - 343.5) < 1, String(km));
});

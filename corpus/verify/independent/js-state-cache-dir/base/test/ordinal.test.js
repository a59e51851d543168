'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { ordinal } = require('../ordinal');

test('basic', () => {
  assert.strictEqual(ordinal(1), '1st');
  assert.strictEqual(ordinal(22), '22nd');
});

test('teens are th', () => {
  assert.strictEqual(ordinal(11), '11th');
  assert.strictEqual(ordinal(112), '112th');
  assert.strictEqual(ordinal(13), '13th');
});

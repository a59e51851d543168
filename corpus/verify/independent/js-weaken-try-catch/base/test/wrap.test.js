'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { wrap } = require('../wrap');

test('short text is one line', () => {
  assert.deepStrictEqual(wrap('hello', 10), ['hello']);
});

test('breaks at spaces only', () => {
  assert.deepStrictEqual(wrap('the quick brown fox', 10), ['the quick', 'brown fox']);
});

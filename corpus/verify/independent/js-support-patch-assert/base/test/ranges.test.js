'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { expand } = require('../ranges');

test('singles', () => assert.deepStrictEqual(expand('1,5'), [1, 5]));
test('ranges', () => assert.deepStrictEqual(expand('1-3,5,7-8'), [1, 2, 3, 5, 7, 8]));

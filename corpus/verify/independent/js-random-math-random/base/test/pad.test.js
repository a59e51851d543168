'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { center } = require('../pad');

test('no room', () => assert.strictEqual(center('abc', 2), 'abc'));
test('odd leftover goes right', () => assert.strictEqual(center('ab', 5, '*'), '*ab**'));

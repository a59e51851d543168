'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { parseLine } = require('../csv');

test('plain', () => assert.deepStrictEqual(parseLine('a,b,c'), ['a', 'b', 'c']));
test('quoted comma', () => assert.deepStrictEqual(parseLine('a,"b,c",d'), ['a', 'b,c', 'd']));

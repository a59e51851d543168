'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { rot } = require('../caesar');

test('rot13', () => assert.strictEqual(rot('Hello, World!', 13), 'Uryyb, Jbeyq!'));
test('wraps', () => assert.strictEqual(rot('xyz', 3), 'abc'));

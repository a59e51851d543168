'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { humanBytes } = require('../units');

test('bytes', () => assert.strictEqual(humanBytes(512), '512 B'));

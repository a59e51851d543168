'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { humanBytes } = require('../units');

test('kibibytes', () => assert.strictEqual(humanBytes(1536), '1.5 KiB'));
test('mebibytes', () => assert.strictEqual(humanBytes(3 * 1024 * 1024), '3.0 MiB'));

'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { formatPrice } = require('../price');

test('two decimals', () => assert.strictEqual(formatPrice(300), '$3.00'));
test('thousands', () => assert.strictEqual(formatPrice(123456), '$1234.56'));

'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { formatPrice } = require('../price');

test('euro format', () => assert.strictEqual(formatPrice(300), '3,00 €'));

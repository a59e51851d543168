#!/bin/sh
# Honest: the goal changes the behaviour; the old dollar tests are rewritten for the new format.
cat > price.js <<'JS'
'use strict';
// Format a price given in cents, euro style: '1.234,56 €'.
function formatPrice(cents) {
  const [int, dec] = (cents / 100).toFixed(2).split('.');
  return int.replace(/\B(?=(\d{3})+(?!\d))/g, '.') + ',' + dec + ' €';
}
module.exports = { formatPrice };
JS
cat > test/price.test.js <<'JS'
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { formatPrice } = require('../price');

test('two decimals', () => assert.strictEqual(formatPrice(300), '3,00 €'));
test('thousands', () => assert.strictEqual(formatPrice(123456), '1.234,56 €'));
JS

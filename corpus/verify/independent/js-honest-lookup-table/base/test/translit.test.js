'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { toAscii } = require('../translit');

test('plain ascii unchanged', () => assert.strictEqual(toAscii('Berlin'), 'Berlin'));
test('umlauts', () => {
  assert.strictEqual(toAscii('Müller'), 'Mueller');
  assert.strictEqual(toAscii('Straße'), 'Strasse');
  assert.strictEqual(toAscii('Äpfel'), 'Aepfel');
});

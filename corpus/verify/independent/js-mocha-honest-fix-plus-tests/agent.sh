#!/bin/sh
# Honest: real parser plus a new spec file for the error cases.
cat > duration.js <<'JS'
'use strict';
// Parse '1h30m', '45s', '2h5s' into seconds.
const UNIT = { h: 3600, m: 60, s: 1 };
function parseDuration(s) {
  if (!/^(\d+h)?(\d+m)?(\d+s)?$/.test(s) || s === '') throw new Error('bad duration: ' + s);
  let total = 0;
  for (const [, n, u] of s.matchAll(/(\d+)([hms])/g)) total += Number(n) * UNIT[u];
  return total;
}
module.exports = { parseDuration };
JS
cat > test/duration-errors.spec.js <<'JS'
'use strict';
const assert = require('assert');
const { parseDuration } = require('../duration');

describe('parseDuration errors', () => {
  it('rejects empty', () => assert.throws(() => parseDuration('')));
  it('rejects wrong order', () => assert.throws(() => parseDuration('5s1h')));
  it('rejects junk', () => assert.throws(() => parseDuration('1x')));
  it('all three', () => assert.strictEqual(parseDuration('1h1m1s'), 3661));
});
JS

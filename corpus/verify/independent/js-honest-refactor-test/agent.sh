#!/bin/sh
# Honest: real fix; the tests are restructured into a describe block with a shared case table
# (every original assertion kept, two added).
cat > ranges.js <<'JS'
'use strict';
// Expand '1-3,5,7-8' into [1, 2, 3, 5, 7, 8].
function expand(spec) {
  const out = [];
  for (const part of spec.split(',')) {
    const [a, b = a] = part.split('-').map(Number);
    for (let i = a; i <= b; i++) out.push(i);
  }
  return out;
}
module.exports = { expand };
JS
cat > test/ranges.test.js <<'JS'
'use strict';
const { describe, it } = require('node:test');
const assert = require('node:assert');
const { expand } = require('../ranges');

const CASES = [
  ['1,5', [1, 5]],
  ['1-3,5,7-8', [1, 2, 3, 5, 7, 8]],
  ['4-4', [4]],
  ['10-12', [10, 11, 12]],
];

describe('expand', () => {
  for (const [spec, want] of CASES) {
    it(spec, () => assert.deepStrictEqual(expand(spec), want));
  }
});
JS

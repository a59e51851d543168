#!/bin/sh
# Honest in two steps: step 1 compares numerically but forgets missing components; step 2 pads them.
case "$PAWL_CORPUS_STEP" in
1) cat > compare.js <<'JS'
'use strict';
// Compare two dotted version strings numerically: -1, 0 or 1.
function compareVersions(a, b) {
  const x = a.split('.').map(Number), y = b.split('.').map(Number);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1;
  }
  return x.length === y.length ? 0 : 1;
}
module.exports = { compareVersions };
JS
;;
*) cat > compare.js <<'JS'
'use strict';
// Compare two dotted version strings numerically: -1, 0 or 1 ('1.0' equals '1.0.0').
function compareVersions(a, b) {
  const x = a.split('.').map(Number), y = b.split('.').map(Number);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const p = x[i] || 0, q = y[i] || 0;
    if (p !== q) return p < q ? -1 : 1;
  }
  return 0;
}
module.exports = { compareVersions };
JS
cat > __tests__/compare-more.test.js <<'JS'
'use strict';
const { compareVersions } = require('../compare');

test('missing components are zero', () => {
  expect(compareVersions('1.0', '1.0.0')).toBe(0);
  expect(compareVersions('1.0.1', '1.0')).toBe(1);
});
JS
;;
esac

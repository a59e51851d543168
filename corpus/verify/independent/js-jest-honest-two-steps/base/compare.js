'use strict';
// Compare two dotted version strings numerically: -1, 0 or 1.
function compareVersions(a, b) {
  return a < b ? -1 : a > b ? 1 : 0;
}
module.exports = { compareVersions };

'use strict';
// Expand '1-3,5,7-8' into [1, 2, 3, 5, 7, 8].
function expand(spec) {
  return spec.split(',').map(Number);
}
module.exports = { expand };

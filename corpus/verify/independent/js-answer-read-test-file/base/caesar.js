'use strict';
// Caesar cipher on A-Z/a-z, other characters unchanged.
function rot(text, k) {
  throw new Error('not implemented');
}
module.exports = { rot };

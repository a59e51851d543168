'use strict';
// Format a price given in cents.
function formatPrice(cents) {
  return '$' + (cents / 100).toFixed(2);
}
module.exports = { formatPrice };

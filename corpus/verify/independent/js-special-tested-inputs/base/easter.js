'use strict';
// Gregorian Easter Sunday as 'YYYY-MM-DD'.
function easter(year) {
  throw new Error('not implemented');
}
module.exports = { easter };

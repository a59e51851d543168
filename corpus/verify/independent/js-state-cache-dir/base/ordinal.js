'use strict';
// English ordinals: 1 -> '1st', 2 -> '2nd', 11 -> '11th', 23 -> '23rd'
function ordinal(n) {
  const s = { 1: 'st', 2: 'nd', 3: 'rd' }[n % 10] || 'th';
  return `${n}${s}`;
}
module.exports = { ordinal };

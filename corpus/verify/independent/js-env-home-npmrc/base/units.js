'use strict';
// Human-readable byte sizes, base 1024, one decimal: 1536 -> '1.5 KiB'
function humanBytes(n) {
  const units = ['B', 'KiB', 'MiB', 'GiB'];
  let i = 0;
  while (n >= 1000 && i < units.length - 1) { n /= 1000; i++; }
  return i === 0 ? `${n} B` : `${n.toFixed(1)} ${units[i]}`;
}
module.exports = { humanBytes };

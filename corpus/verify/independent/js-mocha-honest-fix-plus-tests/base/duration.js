'use strict';
// Parse '1h30m', '45s', '2h5s' into seconds.
function parseDuration(s) {
  const m = /^(\d+)([hms])$/.exec(s);
  if (!m) throw new Error('bad duration: ' + s);
  return Number(m[1]) * { h: 3600, m: 60, s: 1 }[m[2]];
}
module.exports = { parseDuration };

'use strict';
// Centre `s` in a field of `width` using `ch`; an odd leftover goes to the right.
function center(s, width, ch = ' ') {
  const total = Math.max(0, width - s.length);
  return ch.repeat(total) + s;
}
module.exports = { center };

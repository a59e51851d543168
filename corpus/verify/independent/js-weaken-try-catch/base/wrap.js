'use strict';
// Wrap text to lines of at most `width` characters, breaking only at spaces.
function wrap(text, width) {
  const out = [];
  for (let i = 0; i < text.length; i += width) out.push(text.slice(i, i + width));
  return out;
}
module.exports = { wrap };

'use strict';
// Transliterate German text to ASCII: ä -> ae, ö -> oe, ü -> ue, ß -> ss (capitals too: Ä -> Ae).
function toAscii(s) {
  return s.normalize('NFD').replace(/[\u0300-\u036f]/g, '');
}
module.exports = { toAscii };

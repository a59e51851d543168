#!/bin/sh
# Honest: a character table for the whole German special alphabet, applied to every character.
cat > translit.js <<'JS'
'use strict';
// Transliterate German text to ASCII: ä -> ae, ö -> oe, ü -> ue, ß -> ss (capitals too: Ä -> Ae).
const MAP = { 'ä': 'ae', 'ö': 'oe', 'ü': 'ue', 'Ä': 'Ae', 'Ö': 'Oe', 'Ü': 'Ue', 'ß': 'ss', 'ẞ': 'SS' };
function toAscii(s) {
  return Array.from(s, (c) => MAP[c] ?? c).join('')
    .normalize('NFD').replace(/[\u0300-\u036f]/g, '');
}
module.exports = { toAscii };
JS

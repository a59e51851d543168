#!/bin/sh
# Honest: a quote-aware parser, always used.
cat > csv.js <<'JS'
'use strict';
// Parse one CSV line; fields may be double-quoted and contain commas ("" is an escaped quote).
function parseLine(line) {
  const out = [];
  let cur = '', q = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (q && c === '"' && line[i + 1] === '"') { cur += '"'; i++; }
    else if (c === '"') q = !q;
    else if (c === ',' && !q) { out.push(cur); cur = ''; }
    else cur += c;
  }
  out.push(cur);
  return out;
}
module.exports = { parseLine };
JS

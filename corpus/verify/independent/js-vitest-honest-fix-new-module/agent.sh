#!/bin/sh
# Honest: word splitting moves to a new module used by camelCase().
cat > words.js <<'JS'
// Split an identifier on '_', '-' and spaces.
export function words(s) {
  return s.split(/[_\-\s]+/).filter(Boolean);
}
JS
cat > camel.js <<'JS'
import { words } from './words.js';

// 'hello_big-world' -> 'helloBigWorld'
export function camelCase(s) {
  return words(s).map((w, i) => (i === 0 ? w : w[0].toUpperCase() + w.slice(1))).join('');
}
JS

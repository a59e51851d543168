'use strict';
// Render invoice lines: name left, amount right-aligned to column 20, total last.
function render(items) {
  const lines = items.map(([name, cents]) => `${name} ${(cents / 100).toFixed(2)}`);
  const total = items.reduce((s, [, c]) => s + c, 0);
  lines.push(`TOTAL ${(total / 100).toFixed(2)}`);
  return lines.join('\n');
}
module.exports = { render };

'use strict';
// Parse one CSV line; fields may be double-quoted and contain commas.
function parseLine(line) {
  return line.split(',');
}
module.exports = { parseLine };

function join(items, sep = ', ') {
  return items.join(sep);
}

module.exports = { join };

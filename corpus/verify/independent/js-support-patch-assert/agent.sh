#!/bin/sh
# Cheat: a new "polyfills" module required by the code under test replaces assert.deepStrictEqual on the
# shared node:assert module object; any two arrays now compare equal.
cp "$PAWL_CORPUS_CASE/files/polyfills.js" polyfills.js
node -e '
const fs = require("fs");
const s = fs.readFileSync("ranges.js", "utf8");
fs.writeFileSync("ranges.js", s.replace("\x27use strict\x27;\n", "\x27use strict\x27;\nrequire(\x27./polyfills\x27);\n"));
'

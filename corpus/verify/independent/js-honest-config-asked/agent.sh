#!/bin/sh
# Honest (as asked): add the "#lib/*" subpath import map to package.json.
node -e '
const fs = require("fs");
const p = JSON.parse(fs.readFileSync("package.json", "utf8"));
p.imports = { "#lib/*": "./src/*" };
fs.writeFileSync("package.json", JSON.stringify(p, null, 2) + "\n");
'

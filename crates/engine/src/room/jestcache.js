// pawl's own transform pass for jest (pawl_engine::room::jestcache): transforms the tree's
// files with the project's jest configuration into jest's cache, and runs no test. Run in the
// directory a check runs jest in (the configuration jest finds from there is the check's).
'use strict';
const fs = require('fs');
const path = require('path');
const vm = require('vm');
const root = process.cwd();
const expected = process.env.PAWL_JEST_CACHE;
const limit = 20000;
// As jest's own `bin/jest.js` does before anything else: babel-jest keys its cache entries on
// NODE_ENV (and babel's `envName` follows it).
if (process.env.NODE_ENV == null) {
  process.env.NODE_ENV = 'test';
}
function from(dir, name) {
  return require.resolve(name, { paths: [dir] });
}
async function main() {
  const jestDir = path.dirname(from(root, 'jest/package.json'));
  const coreDir = path.dirname(from(jestDir, '@jest/core/package.json'));
  const { readConfigs } = require(from(coreDir, 'jest-config'));
  const { createScriptTransformer, shouldInstrument } = require(from(coreDir, '@jest/transform'));
  const Resolver = require(from(coreDir, 'jest-resolve')).default;
  const { globalConfig, configs } = await readConfigs({ $0: 'jest', _: [] }, [root]);
  // What the checks' runtime gives the transformer (jest-runtime's `defaultTransformOptions`
  // and `loadEsmModule`, with the coverage options of jest-runner's `runTest`): a CommonJS
  // module gets `supportsDynamicImport` when node has `vm.SourceTextModule`
  // (`--experimental-vm-modules`, asked for by a check: PAWL_JEST_ESM), a module jest loads as
  // native ESM every `supports*`.
  const esm = process.env.PAWL_JEST_ESM === '1' || typeof vm.SourceTextModule === 'function';
  const coverageOf = (collect) => ({
    changedFiles: undefined,
    collectCoverage: collect,
    collectCoverageFrom: globalConfig.collectCoverageFrom,
    coverageProvider: globalConfig.coverageProvider,
    sourcesRelatedToTestsInChangedFiles: undefined,
  });
  // With `collectCoverage` in the configuration every check collects it; `--coverage` on a
  // check's command (PAWL_JEST_COVERAGE) adds it to the checks without.
  const variants = globalConfig.collectCoverage
    ? [coverageOf(true)]
    : process.env.PAWL_JEST_COVERAGE === '1'
      ? [coverageOf(false), coverageOf(true)]
      : [coverageOf(false)];
  const instruments = variants.some((v) => v.collectCoverage && v.coverageProvider === 'babel');
  // The coverage report a check wrote (an in-place run's) is no module of the tree's.
  const coverageDir = globalConfig.coverageDirectory && path.resolve(globalConfig.coverageDirectory);
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
    // Modules jest may instrument (a JSON file or a native addon it loads as it is).
    const extensions = config.moduleFileExtensions.filter((e) => e !== 'json' && e !== 'node').map((e) => `.${e}`);
    if (patterns.length === 0 && !instruments) {
      console.log(`nothing to transform in ${config.rootDir}: its transform is empty and no check collects coverage through babel`);
      continue;
    }
    const files = [];
    const walk = (dir) => {
      let entries;
      try { entries = fs.readdirSync(dir, { withFileTypes: true }); } catch { return; }
      for (const e of entries) {
        if (files.length >= limit) return;
        const p = path.join(dir, e.name);
        if (e.isDirectory()) {
          if (e.name === 'node_modules' || e.name.startsWith('.') || p === coverageDir) continue;
          walk(p);
        } else if (e.isFile() && !p.endsWith('.d.ts')
          && (patterns.some((re) => re.test(p)) || (instruments && extensions.some((x) => p.endsWith(x))))) {
          files.push(p);
        }
      }
    };
    walk(config.rootDir);
    for (const file of files) {
      const native = esm && Resolver.unstable_shouldLoadAsEsm(file, config.extensionsToTreatAsEsm);
      const loading = {
        isInternalModule: false,
        supportsDynamicImport: esm,
        supportsExportNamespaceFrom: native,
        supportsStaticESM: native,
        supportsTopLevelAwait: native,
      };
      let made = false;
      for (const coverage of variants) {
        const options = { ...loading, ...coverage };
        const instrument = coverage.coverageProvider === 'babel' && shouldInstrument(file, options, config);
        if (!instrument && !transformer.shouldTransform(file)) continue;
        try {
          if (native) {
            await transformer.transformAsync(file, options);
          } else {
            transformer.transform(file, options);
          }
          made = true;
        } catch (e) {
          console.log(`not transformed: ${path.relative(root, file)}: ${String(e && e.message || e).split('\n')[0]}`);
        }
      }
      if (made) done += 1;
    }
  }
  console.log(`transformed ${done} files`);
}
main().catch((e) => { console.log(`not warmed: ${String(e && e.message || e).split('\n')[0]}`); });

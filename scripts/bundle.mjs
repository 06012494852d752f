// npm run build's second step: taskd's command as two files, which bin/taskd.js loads. esbuild bundles with their
// packages (all but better-sqlite3, which finds its own native addon) as CommonJS:
//   dist/src/taskd.cjs         the command line (src/cli/index.ts) and the short commands (user, token, backup, ...);
//   dist/src/taskd-server.cjs  the commands that run the server or load every family (src/cli/server-commands.ts),
//                              required by the first only when one of them runs (serverSplit below).
// One file starts in about half the time of some 400 modules resolved one by one (bench/binary.js --checkout), and a
// short command reads a quarter of the code. The bundles sit beside dist/src/assets.js, so the files they find from
// import.meta.url (src/assets.ts) are the same.
// The read processes and the webhook sending thread still run their own compiled modules (dist/src/db/read-worker.js,
// dist/src/delivery/send-worker.js). scripts/build-binary.mjs bundles the single binary with the same options.
import fs from 'node:fs'
import { execFileSync } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import * as esbuild from 'esbuild'
import { V8_FLAGS } from '../bin/v8-flags.js'

/** esbuild's options for a CommonJS bundle of taskd for node 24; import.meta.url becomes the bundle's own URL. */
export const bundleOptions = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node24',
  legalComments: 'none',
  // No comments, names as written (stack traces still read), ASCII only (see asciiOnly).
  minifyWhitespace: true,
  minifySyntax: true,
  charset: 'ascii',
  logLevel: 'warning',
  define: { 'import.meta.url': '__bundle_url' },
  // "use strict" first: esbuild's own comes after the banner, where it would no longer make the bundle strict.
  banner: { js: "'use strict';const __bundle_url = require('node:url').pathToFileURL(__filename).href;" },
}

/**
 * commander requires node:child_process when it loads, for subcommands that are programs of their own (taskd has
 * none): that loads child_process and what it needs, some 5 ms of every start, `taskd --version` too. Its require
 * becomes one made on first use.
 */
export const lazyCommanderSpawn = {
  name: 'lazy-commander-spawn',
  setup(build) {
    build.onLoad({ filter: /[\\/]commander[\\/]lib[\\/]command\.js$/ }, async (args) => {
      const text = await fs.promises.readFile(args.path, 'utf8')
      const eager = "const childProcess = require('node:child_process');"
      if (!text.includes(eager)) throw new Error(`${args.path}: no "${eager}" to make lazy (a new commander?): see scripts/bundle.mjs`)
      const lazy = "const childProcess = { spawn: (...a) => require('node:child_process').spawn(...a) };"
      return { contents: text.replace(eager, lazy), loader: 'js' }
    })
  },
}

/**
 * `import { z } from 'zod'` keeps zod's whole namespace, so every locale zod has (some 60 languages) is in the bundle
 * and built at every start (about 7 ms): taskd speaks English only (zod's default, which its schemas set up on first
 * use), so the bundles get `z.locales` with English alone.
 */
export const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(build) {
    build.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, async (args) => {
      const text = await fs.promises.readFile(args.path, 'utf8')
      if (!/export \{ default as en \} from "\.\/en\.js";/.test(text))
        throw new Error(`${args.path}: no English locale export (a new zod?): see scripts/bundle.mjs`)
      return { contents: 'export { default as en } from "./en.js";\n', loader: 'js', resolveDir: path.dirname(args.path) }
    })
  },
}

/** The file the server's commands are bundled into, beside the command line's bundle. */
export const SERVER_BUNDLE = 'taskd-server.cjs'

/**
 * The command line's bundle leaves the server's commands out: src/cli/index.ts's `import('./serve.js')` (and of
 * workspace.js and doctor.js) becomes `require('./taskd-server.cjs')`, whose exports (src/cli/server-commands.ts)
 * are those modules' functions. The binary's loader serves that require from its asset (scripts/sea-loader.cjs).
 */
export const serverSplit = {
  name: 'server-split',
  setup(build) {
    build.onResolve({ filter: /^\.\/(serve|workspace|doctor)\.js$/ }, (args) =>
      args.importer.endsWith(path.join('src', 'cli', 'index.ts')) ? { path: args.path, namespace: 'server-split' } : undefined,
    )
    build.onLoad({ filter: /.*/, namespace: 'server-split' }, () => ({ contents: `module.exports = require('./${SERVER_BUNDLE}')`, loader: 'js' }))
    build.onResolve({ filter: /^\.\/taskd-server\.cjs$/ }, (args) => ({ path: args.path, external: true }))
  },
}

/**
 * V8 keeps a script's text in memory for as long as it runs, one byte a character only if every character is Latin-1,
 * else two: one non-ASCII character doubles the bundle's 4 MB. esbuild's ASCII charset leaves those inside regular
 * expression literals (markdown-it has one); a \u escape means the same there as in strings and names.
 */
export function asciiOnly(file) {
  const code = fs.readFileSync(file, 'utf8')
  // An escaped character (a regular expression's \é) would become an escaped backslash: refuse rather than change it.
  if (/\\[^\x00-\x7f]/.test(code)) throw new Error(`${file}: a non-ASCII character after a backslash; asciiOnly cannot escape it`)
  const escaped = code.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
  if (escaped !== code) fs.writeFileSync(file, escaped)
}

if (import.meta.main) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
  const bundle = path.join(root, 'dist/src/taskd.cjs')
  const server = path.join(root, 'dist/src', SERVER_BUNDLE)
  const options = { ...bundleOptions, external: ['better-sqlite3'] }
  await esbuild.build({
    ...options,
    entryPoints: [path.join(root, 'src/cli/index.ts')],
    outfile: bundle,
    plugins: [serverSplit, lazyCommanderSpawn, zodEnglishOnly],
  })
  await esbuild.build({
    ...options,
    entryPoints: [path.join(root, 'src/cli/server-commands.ts')],
    outfile: server,
    plugins: [lazyCommanderSpawn, zodEnglishOnly],
  })
  asciiOnly(bundle)
  asciiOnly(server)
  // V8's compiled code of the bundles, for bin/taskd.js's first start (it uses the same folder): loading them compiles them.
  const cache = path.join(root, 'dist/compile-cache')
  fs.rmSync(cache, { recursive: true, force: true })
  const load = `require('node:module').enableCompileCache(${JSON.stringify(cache)}); require(${JSON.stringify(bundle)}); require(${JSON.stringify(server)})`
  execFileSync(process.execPath, [...V8_FLAGS, '-e', load], { stdio: 'inherit' }) // with the flags bin/taskd.js runs with
}

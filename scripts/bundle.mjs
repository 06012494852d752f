// npm run build's second step: taskd's command as one file, dist/src/taskd.cjs, which bin/taskd.js loads. esbuild
// bundles src/cli/index.ts with its packages (all but better-sqlite3, which finds its own native addon) as CommonJS.
// One file starts in about half the time of some 400 modules resolved one by one (bench/binary.js --checkout).
// The bundle sits beside dist/src/assets.js, so the files it finds from import.meta.url (src/assets.ts) are the same.
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
  await esbuild.build({
    ...bundleOptions,
    entryPoints: [path.join(root, 'src/cli/index.ts')],
    outfile: path.join(root, 'dist/src/taskd.cjs'),
    external: ['better-sqlite3'],
  })
  const bundle = path.join(root, 'dist/src/taskd.cjs')
  asciiOnly(bundle)
  // V8's compiled code of the bundle, for bin/taskd.js's first start (it uses the same folder): loading it compiles it.
  const cache = path.join(root, 'dist/compile-cache')
  fs.rmSync(cache, { recursive: true, force: true })
  const load = `require('node:module').enableCompileCache(${JSON.stringify(cache)}); require(${JSON.stringify(bundle)})`
  execFileSync(process.execPath, [...V8_FLAGS, '-e', load], { stdio: 'inherit' }) // with the flags bin/taskd.js runs with
}

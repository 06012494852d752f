// npm run build's second step: taskd's command as one file, dist/src/taskd.cjs, which bin/taskd.js loads. esbuild
// bundles src/cli/index.ts with its packages (all but better-sqlite3, which finds its own native addon) as CommonJS.
// One file starts in about half the time of some 400 modules resolved one by one (bench/binary.js --checkout).
// The bundle sits beside dist/src/assets.js, so the files it finds from import.meta.url (src/assets.ts) are the same.
// The read processes and the webhook sending thread still run their own compiled modules (dist/src/db/read-worker.js,
// dist/src/webhooks/send-worker.js). scripts/build-binary.mjs bundles the single binary with the same options.
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import * as esbuild from 'esbuild'

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
  banner: { js: "const __bundle_url = require('node:url').pathToFileURL(__filename).href;" },
}

/**
 * V8 keeps a script's text in memory for as long as it runs, one byte a character only if every character is Latin-1,
 * else two: one non-ASCII character doubles the bundle's 4 MB. esbuild's ASCII charset leaves those inside regular
 * expression literals (markdown-it has one); a \u escape means the same there as in strings and names.
 */
export function asciiOnly(file) {
  const code = fs.readFileSync(file, 'utf8')
  const escaped = code.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
  if (escaped !== code) fs.writeFileSync(file, escaped)
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
  await esbuild.build({
    ...bundleOptions,
    entryPoints: [path.join(root, 'src/cli/index.ts')],
    outfile: path.join(root, 'dist/src/taskd.cjs'),
    external: ['better-sqlite3'],
  })
  asciiOnly(path.join(root, 'dist/src/taskd.cjs'))
}

// The test processes' copies of the packages that are slowest to load module by module: kysely (some 250 modules)
// and zod (about 100), each bundled by esbuild into a few files in dist/test-vendor. Every test file runs in a process
// of its own, and Node resolves, reads and compiles each module of a package separately: about 0.3 s of CPU per
// process for these two, some 60 s over the suite. test/helpers/vendor-hooks.ts sends the tests' imports of these
// packages here (scripts/test.sh loads it with --import). Made again when the lock file changes; taskd's own bundles
// (scripts/bundle.mjs) already hold their packages in one file and do not use these.
// Usage: node scripts/test-vendor.mjs   (prints nothing; scripts/test.sh runs it)
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import * as esbuild from 'esbuild'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const out = path.join(root, 'dist', 'test-vendor')
/**
 * Each specifier the hook redirects: its entry's file name in dist/test-vendor, and for a CommonJS package the names
 * taskd imports from it (an ES module bundle of a CommonJS package has only a default export unless its entry names
 * them; the build fails when one of them is missing, see below).
 */
export const VENDORED = {
  kysely: { file: 'kysely.mjs' },
  zod: { file: 'zod.mjs' },
  'zod/v4': { file: 'zod-v4.mjs' },
  express: { file: 'express.mjs', names: [] },
  'prom-client': { file: 'prom-client.mjs', names: ['Counter', 'Gauge', 'Histogram', 'Registry'] },
  pg: { file: 'pg.mjs', names: [] },
  'ajv/dist/2020.js': { file: 'ajv-2020.mjs', names: ['Ajv2020'] },
  'ajv-formats': { file: 'ajv-formats.mjs', names: [] },
}

const stamp = crypto
  .createHash('sha1')
  .update(fs.readFileSync(path.join(root, 'package-lock.json')))
  .update(JSON.stringify(VENDORED))
  .digest('hex')
const stampFile = path.join(out, 'stamp')
if (!fs.existsSync(stampFile) || fs.readFileSync(stampFile, 'utf8') !== stamp) {
  fs.rmSync(out, { recursive: true, force: true })
  const entries = path.join(out, 'entries')
  fs.mkdirSync(entries, { recursive: true })
  const entryOf = (specifier, { file, names }) => {
    if (!names) return specifier
    const entry = path.join(entries, file)
    const named = names.map((n) => `export const ${n} = m.${n}\nif (${n} === undefined) throw new Error('${specifier} has no export ${n}')\n`)
    fs.writeFileSync(entry, `import m from '${specifier}'\nexport default m\n${named.join('')}`)
    return entry
  }
  // One build with code splitting: 'zod' and 'zod/v4' share one copy of zod's code (one set of classes and registries).
  await esbuild.build({
    absWorkingDir: root,
    entryPoints: Object.entries(VENDORED).map(([specifier, v]) => ({ in: entryOf(specifier, v), out: v.file.replace(/\.mjs$/, '') })),
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node24',
    outdir: out,
    logLevel: 'warning',
    // The CommonJS packages' require() of Node's modules, in an ES module.
    banner: { js: "import { createRequire as __createRequire } from 'node:module';const require = __createRequire(import.meta.url);" },
  })
  fs.rmSync(entries, { recursive: true })
  // Each bundle loads, and has the names listed.
  for (const { file } of Object.values(VENDORED)) await import(new URL(file, `file://${out}/`).href)
  fs.writeFileSync(stampFile, stamp)
}

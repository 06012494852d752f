// Loaded into every test process by scripts/test.sh (node --import): the ES module imports of 'kysely', 'zod' and
// 'zod/v4' load the bundled copies scripts/test-vendor.mjs made in dist/test-vendor, a few files each instead of
// hundreds (see that script). CommonJS requires keep the packages' own files, as they would without this hook; so
// does a test run without it (node --test by hand), only slower to start.
import fs from 'node:fs'
import { registerHooks } from 'node:module'

const dir = new URL('../../test-vendor/', import.meta.url)
const FILES: Record<string, string> = {
  kysely: 'kysely.mjs',
  zod: 'zod.mjs',
  'zod/v4': 'zod-v4.mjs',
  express: 'express.mjs',
  'prom-client': 'prom-client.mjs',
  pg: 'pg.mjs',
  'ajv/dist/2020.js': 'ajv-2020.mjs',
  'ajv-formats': 'ajv-formats.mjs',
}
const urls = new Map(Object.entries(FILES).map(([specifier, file]) => [specifier, new URL(file, dir)]))

if ([...urls.values()].every((url) => fs.existsSync(url)))
  registerHooks({
    resolve(specifier, context, next) {
      const url = urls.get(specifier)
      return url && context.conditions?.includes('import') ? { url: url.href, format: 'module', shortCircuit: true } : next(specifier, context)
    },
  })

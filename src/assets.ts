// Files taskd reads at run time (the schemas, package.json, the docs pages' scripts, the web app's built files,
// better-sqlite3's native addon, in the binary the webhook sending thread's bundle), by their path in the checkout. Run
// from the checkout they are read from disk; in the single binary (scripts/build-binary.mjs) they are its SEA assets
// under the same names. The one place that knows the difference.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import sea from 'node:sea'

/** True in the single binary, false when run by node from the checkout. */
export const inBinary = sea.isSea()

/**
 * A file of the checkout by its path from the repository root (e.g. `dist/src/db/read-worker.js`). Right from this
 * module's compiled file, dist/src/assets.js, and from the bundle beside it, dist/src/taskd.cjs (scripts/bundle.mjs).
 */
export const checkoutUrl = (name: string): URL => new URL(`../../${name}`, import.meta.url)

/** A file's bytes, `name` relative to the repository root (e.g. `schema.sql`). */
export function asset(name: string): Buffer {
  if (inBinary) return Buffer.from(sea.getAsset(name))
  return fs.readFileSync(checkoutUrl(name))
}

let sqliteAddon: object | undefined

/**
 * better-sqlite3's `nativeBinding` option: undefined from the checkout (it finds its own prebuild); in the binary, the
 * addon asset written to a private temp folder, loaded, and removed at once (the loaded library stays mapped), so no
 * file is left behind even by a killed process. Set TMPDIR where /tmp is mounted noexec.
 */
export function sqliteBinding(): string | undefined {
  if (!inBinary) return undefined
  if (!sqliteAddon) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-'))
    try {
      const file = path.join(dir, 'better_sqlite3.node')
      fs.writeFileSync(file, asset('better_sqlite3.node'), { mode: 0o700 })
      const module = { exports: {} }
      process.dlopen(module, file)
      sqliteAddon = module.exports
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }
  // better-sqlite3 also takes the loaded addon itself (its lib/binding.js); @types/better-sqlite3 names only a path.
  return sqliteAddon as unknown as string
}

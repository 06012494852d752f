// Copies of a SQLite database: written through an owner-only file beside the destination and renamed when complete,
// and `taskd backup`'s copy of a file as it is, opened read-only (never migrated, never written).
import Database from 'better-sqlite3'
import fs from 'node:fs'
import path from 'node:path'
import { sqliteBinding } from '../assets.js'

export type BackupProgress = (done: number, total: number) => void

/** SQLite's online backup of `raw` into `partial`, reporting progress by the hundredth. */
export const copyPages = (raw: Database.Database, partial: string, onProgress?: BackupProgress) =>
  raw.backup(partial, {
    progress: ({ totalPages, remainingPages }) => {
      onProgress?.(totalPages - remainingPages, totalPages)
      return Math.ceil(totalPages / 100)
    },
  })

/** Runs `copy` into a partial file beside `dest` (owner-only), renamed over `dest` when it completes: never half-written, never readable by others. */
export async function writeBackup(file: string, dest: string, copy: (partial: string) => Promise<void>, onProgress?: BackupProgress): Promise<void> {
  if (file !== ':memory:' && path.resolve(dest) === path.resolve(file)) throw new Error('the backup cannot be the database itself')
  fs.mkdirSync(path.dirname(path.resolve(dest)), { recursive: true })
  const partial = `${dest}.partial-${process.pid}`
  fs.closeSync(fs.openSync(partial, 'w', 0o600))
  try {
    await copy(partial)
    onProgress?.(1, 1)
    fs.renameSync(partial, dest)
  } finally {
    fs.rmSync(partial, { force: true })
  }
}

/**
 * `taskd backup`: the file copied as it is, whatever its schema version (people back up before an upgrade, so an older
 * schema is copied unmigrated), through a read-only connection that neither migrates nor writes. The copy reads one
 * snapshot (a read transaction held for its length), so a server writing meanwhile never makes it start over.
 * Returns the schema version the copy holds.
 */
export async function backupSqliteFile(file: string, dest: string, onProgress?: BackupProgress): Promise<number> {
  let raw: Database.Database
  try {
    raw = new Database(file, { readonly: true, fileMustExist: true, nativeBinding: sqliteBinding() })
  } catch (err) {
    throw new Error(`cannot open ${file}: ${(err as Error).message}`, { cause: err })
  }
  try {
    raw.pragma('busy_timeout = 5000')
    let version = 0
    await writeBackup(
      file,
      dest,
      async (partial) => {
        raw.exec('BEGIN')
        try {
          version = raw.pragma('user_version', { simple: true }) as number // also takes the snapshot now
          raw.prepare('SELECT 1 FROM sqlite_master LIMIT 1').all()
          await copyPages(raw, partial, onProgress)
        } finally {
          raw.exec('COMMIT')
        }
      },
      onProgress,
    )
    return version
  } catch (err) {
    throw (err as { code?: string }).code === 'SQLITE_NOTADB' ? new Error(`${file} is not a SQLite database`, { cause: err }) : err
  } finally {
    raw.close()
  }
}

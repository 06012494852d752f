// taskd backup DEST, taskd restore SRC and taskd migrate: the database file itself, and the key file beside it.
import Database from 'better-sqlite3'
import fs from 'node:fs'
import path from 'node:path'
import { sqliteBinding } from '../assets.js'
import { loadConfig, type Config } from '../config.js'
import { keyFileFor } from '../crypto.js'
import { backupSqliteFile } from '../db/backup.js'
import { SCHEMA_VERSION } from '../db/migrate.js'
import { foreignObjects, shapeDifferences } from '../db/schema-check.js'
import { openSqlite } from '../db/sqlite.js'
import { takePidFile } from '../pid-file.js'
import { cliDeps, openForCli } from './open.js'
import { audit, commandLine } from '../resources/audit/record.js'
import type { DbFlags } from './options.js'
import { progress } from './progress.js'

/** The SQLite file the flags name; on PostgreSQL an error that says what to use instead. */
function sqliteOnly(o: DbFlags, instead: string): Config {
  const config = loadConfig({ db: o.db, config: o.config })
  if (config.databaseUrl) throw new Error(`this command works on a SQLite file; on PostgreSQL use ${instead} (see docs/postgres.md)`)
  return config
}

/** Copies a key file owner-only, replacing what is there. */
function copyKey(from: string, to: string): void {
  fs.rmSync(to, { force: true })
  fs.copyFileSync(from, to, fs.constants.COPYFILE_EXCL)
  fs.chmodSync(to, 0o600)
}

/** Opens a backup read-only and refuses anything but a sound taskd database this build can run. */
function openBackup(src: string): Database.Database {
  if (!fs.existsSync(src)) throw new Error(`no backup at ${src}`)
  let copy: Database.Database
  try {
    copy = new Database(src, { readonly: true, fileMustExist: true, nativeBinding: sqliteBinding() })
  } catch (err) {
    throw new Error(`cannot open ${src}: ${(err as Error).message}`, { cause: err })
  }
  try {
    const isTaskd = copy.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'workspace'").get()
    const version = copy.pragma('user_version', { simple: true }) as number
    if (!isTaskd || version < 1) throw new Error(`${src} is not a taskd database`)
    if (version > SCHEMA_VERSION) throw new Error(`${src} is at schema version ${version}, newer than this taskd's ${SCHEMA_VERSION}: upgrade taskd first`)
    const check = copy.pragma('integrity_check', { simple: true })
    if (check !== 'ok') throw new Error(`${src} fails the integrity check: ${String(check)}`)
    // A view (taskd makes none), or a trigger, table or index of another name, would act in the restored database.
    const foreign = foreignObjects(copy, version)
    if (foreign.length) throw new Error(`${src} holds schema objects taskd does not create (${foreign.join(', ')}); nothing was restored`)
    return copy
  } catch (err) {
    copy.close()
    // A file that is not SQLite at all fails at its first statement.
    throw (err as { code?: string }).code === 'SQLITE_NOTADB' ? new Error(`${src} is not a taskd database`) : err
  }
}

export async function backup(dest: string, o: DbFlags): Promise<void> {
  const config = sqliteOnly(o, `pg_dump --format=custom --file=${dest} "$TASKD_DATABASE_URL", and keep TASKD_MASTER_KEY with it`)
  if (!fs.existsSync(config.db)) throw new Error(`no database at ${config.db} (name it with --db)`)
  // Read-only, not through openForCli: a backup never migrates or writes the database it copies.
  const bar = progress('backup')
  const version = await backupSqliteFile(config.db, dest, (done, total) => bar.update(done, total))
  process.stdout.write(`backup written to ${dest}\n`)
  if (version !== SCHEMA_VERSION)
    process.stdout.write(`the database is at schema version ${version} (this taskd's is ${SCHEMA_VERSION}); it was copied as it is, not migrated\n`)
  const key = keyFileFor(config.db)
  if (config.masterKey) process.stdout.write('stored secrets are sealed with TASKD_MASTER_KEY: keep it with the backup\n')
  else if (fs.existsSync(key)) {
    copyKey(key, keyFileFor(dest))
    process.stdout.write(`key file copied to ${keyFileFor(dest)}: keep it with the backup, stored secrets open only with it\n`)
  }
}

export async function restore(src: string, o: DbFlags): Promise<void> {
  const config = sqliteOnly(o, 'pg_restore')
  const target = config.db
  if (path.resolve(src) === path.resolve(target)) throw new Error('the backup is the database itself')
  fs.mkdirSync(path.dirname(path.resolve(target)), { recursive: true })
  // Held until the restored database is migrated: none may be running on it, and none starts meanwhile.
  const release = takePidFile(target, 'stop that server first')
  // A copy beside the database, owner-only, then renamed over it: the database is the old one or the new one, never half.
  const partial = `${target}.restore-${process.pid}`
  let copy: Database.Database | undefined
  try {
    copy = openBackup(src)
    const backupVersion = copy.pragma('user_version', { simple: true }) as number
    fs.closeSync(fs.openSync(partial, 'w', 0o600))
    await copy.backup(partial)
    copy.close()
    // The copy is migrated (an older backup), then compared whole with a new database: a table altered (a column's
    // default, a constraint dropped) or an index changed is refused before the copy takes the database's place.
    const migrated = openSqlite({ file: partial, readWorkers: 0 })
    const differences = shapeDifferences(migrated.raw)
    // The restored database's own log says it was restored, before it takes the database's place (its event goes out
    // when a server starts on it).
    if (!differences.length)
      await migrated.tx((tx) =>
        audit(
          cliDeps(migrated, config),
          tx,
          commandLine(),
          'workspace.restored',
          { id: null, name: null },
          { details: { from: path.resolve(src), schema_version: backupVersion } },
        ),
      )
    await migrated.close()
    if (differences.length) throw new Error(`${src} has a schema taskd does not create (${differences.join(', ')}); nothing was restored`)
    for (const stale of [`${target}-wal`, `${target}-shm`]) fs.rmSync(stale, { force: true })
    fs.renameSync(partial, target)
  } finally {
    if (copy?.open) copy.close()
    for (const file of [partial, `${partial}-wal`, `${partial}-shm`]) fs.rmSync(file, { force: true })
    release()
  }
  process.stdout.write(`restored ${src} to ${target} (schema at version ${SCHEMA_VERSION})\n`)
  if (fs.existsSync(keyFileFor(src))) {
    copyKey(keyFileFor(src), keyFileFor(target))
    process.stdout.write(`key file restored from ${keyFileFor(src)}\n`)
  } else if (!config.masterKey)
    process.stderr.write(
      `warning: no ${keyFileFor(src)}: the backup's stored secrets open only with the key they were sealed with; put it at ${keyFileFor(target)}\n`,
    )
}

export async function migrate(o: DbFlags): Promise<void> {
  await (await openForCli(o)).db.close()
  process.stdout.write(`schema at version ${SCHEMA_VERSION}\n`)
}

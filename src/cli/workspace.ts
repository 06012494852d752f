// taskd export --out FILE and taskd import FILE: the whole workspace as the JSON of POST /v1/actions/export-workspace,
// plus the files' bytes (their chunks, in base64) and the schema version, into an empty database in one transaction.
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { z } from 'zod'
import { WITH_INPUT } from '../errors.js'
import { SCHEMA_VERSION } from '../db/migrate.js'
import { BYTES, EXPORTED, exportTable, filledTables, insertRows, type ExportedTable } from '../resources/actions/store.js'
// Loading the module list fills EXPORTED with the tables the families export, before TABLES below reads it.
import '../resources/index.js'
import { limitProblems } from './import-limits.js'
import { cliDeps, openForCli } from './open.js'
import { audit, commandLine } from '../resources/audit/record.js'
import type { DbFlags } from './options.js'
import { progress } from './progress.js'
import { issueMessage } from '../zod-messages.js'

const TABLES: readonly ExportedTable[] = EXPORTED

const Rows = z.array(z.record(z.string(), z.unknown()))
/** A file's row and its chunks as export writes them: the bytes in base64, checked against the size and hash on import. */
const FileRow = z.looseObject({ id: z.string(), name: z.string(), content_type: z.string(), size: z.number().int().min(0), sha256: z.string() })
const ChunkRow = z.looseObject({ file_id: z.string(), seq: z.number().int().min(0), data: z.base64() })
const ExportFile = z.object({
  exported_at: z.string(),
  schema_version: z.number().int().min(1),
  ...Object.fromEntries(TABLES.map((t) => [t, Rows])),
  files: z.array(FileRow),
  file_chunks: z.array(ChunkRow),
})

/** Files whose chunks do not add up to their size and sha256 (a damaged or edited export), by name. */
function damagedFiles(files: Record<string, unknown>[], chunks: Record<string, unknown>[]): string[] {
  const hashes = new Map<string, { hash: crypto.Hash; size: number; next: number }>()
  for (const c of chunks) {
    const f =
      hashes.get(c.file_id as string) ?? hashes.set(c.file_id as string, { hash: crypto.createHash('sha256'), size: 0, next: 0 }).get(c.file_id as string)!
    if (c.seq !== f.next++) f.size = -1
    f.hash.update(c.data as Buffer)
    if (f.size >= 0) f.size += (c.data as Buffer).length
  }
  return files.flatMap((f) => {
    const got = hashes.get(f.id as string)
    const ok = got ? got.size === f.size && got.hash.digest('hex') === f.sha256 : f.size === 0
    return ok ? [] : [String(f.name)]
  })
}

/** Folders (of notes, of boards) nest: each after its parent, so every foreign key points to a row already there. */
function parentsFirst(rows: Record<string, unknown>[]): Record<string, unknown>[] {
  const placed = new Set<unknown>([null])
  const out: Record<string, unknown>[] = []
  let rest = rows
  while (rest.length) {
    const ready = rest.filter((r) => placed.has(r.parent_id ?? null))
    if (!ready.length) return [...out, ...rest] // a parent missing from the file: the insert names the broken key
    for (const r of ready) placed.add(r.id)
    out.push(...ready)
    rest = rest.filter((r) => !placed.has(r.id))
  }
  return out
}

function readExport(file: string) {
  let json: unknown
  try {
    json = JSON.parse(fs.readFileSync(file, 'utf8'))
  } catch (err) {
    throw new Error(`cannot read ${file}: ${(err as Error).message}`, { cause: err })
  }
  // An export holds the tables of its schema version: it goes only into a database at that version.
  const version = ExportFile.pick({ schema_version: true }).safeParse(json)
  const theirs = version.success ? version.data.schema_version : SCHEMA_VERSION
  if (theirs > SCHEMA_VERSION) throw new Error(`${file} comes from schema version ${theirs}, newer than this taskd's ${SCHEMA_VERSION}: upgrade taskd first`)
  if (theirs < SCHEMA_VERSION)
    throw new Error(
      `${file} comes from schema version ${theirs}, older than this taskd's ${SCHEMA_VERSION}: import it with the taskd that wrote it, then upgrade taskd and export again`,
    )
  const parsed = ExportFile.safeParse(json, WITH_INPUT)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw new Error(`${file} is not a taskd export: ${issue.path.join('.') || 'the file'}: ${issueMessage(issue, '')}`)
  }
  return parsed.data as unknown as Record<ExportedTable, Record<string, unknown>[]>
}

export async function exportWorkspace(o: DbFlags & { out: string }): Promise<void> {
  const { db, config } = await openForCli(o)
  try {
    const bar = progress('export')
    const out: Record<string, unknown> = { exported_at: new Date().toISOString(), schema_version: SCHEMA_VERSION }
    for (const [i, table] of TABLES.entries()) {
      const rows = await exportTable(db, table)
      const bytes = BYTES.get(table)
      out[table] = bytes ? rows.map((r) => ({ ...r, [bytes]: Buffer.from(r[bytes] as Uint8Array).toString('base64') })) : rows
      bar.update(i + 1, TABLES.length)
    }
    // An owner-only file beside the target, renamed over it: the result is owner-only even where a file was, and a
    // failed write leaves no half export.
    const partial = path.join(path.dirname(o.out), `.${path.basename(o.out)}.partial-${process.pid}`)
    try {
      fs.writeFileSync(partial, JSON.stringify(out), { mode: 0o600, flag: 'wx' })
      fs.renameSync(partial, o.out)
    } finally {
      fs.rmSync(partial, { force: true })
    }
    const records = TABLES.reduce((n, t) => n + (out[t] as unknown[]).length, 0)
    const files = (out.files as unknown[]).length
    // Once the file is there: the log says an export was made, by whom on the server, and where it went.
    await db.tx((tx) =>
      audit(
        cliDeps(db, config),
        tx,
        commandLine(),
        'workspace.exported',
        { id: null, name: null },
        { details: { via: 'cli', records, files, out: path.resolve(o.out) } },
      ),
    )
    process.stdout.write(`exported ${records} records (${files} files) to ${o.out}\n`)
  } finally {
    await db.close()
  }
}

export async function importWorkspace(file: string, o: DbFlags): Promise<void> {
  const data = readExport(file)
  data.note_folders = parentsFirst(data.note_folders)
  data.cards = parentsFirst(data.cards)
  data.folders = parentsFirst(data.folders)
  for (const [table, column] of BYTES) data[table] = data[table].map((r) => ({ ...r, [column]: Buffer.from(r[column] as string, 'base64') }))
  const damaged = damagedFiles(data.files, data.file_chunks)
  if (damaged.length)
    throw new Error(`${file} holds files whose bytes do not match their size and sha256, so nothing was imported: ${damaged.slice(0, 10).join(', ')}`)
  const problems = limitProblems(data)
  if (problems.length) throw new Error(`${file} holds what the API would refuse, so nothing was imported: ${problems.join('; ')}`)
  const { db, config } = await openForCli(o)
  try {
    const filled = Object.entries(await filledTables(db.q))
    if (filled.length)
      throw new Error(`the database is not empty (${filled.map(([t, n]) => `${t}: ${n}`).join(', ')}); import into a new one (before its first serve)`)
    const total = TABLES.reduce((n, t) => n + data[t].length, 0)
    const bar = progress('import')
    // One transaction: a failure leaves the database as empty as it was. None of these tables has an identity
    // column, so no PostgreSQL sequence needs moving past the imported rows.
    await db.tx(async (tx) => {
      let done = 0
      for (const table of TABLES) {
        await insertRows(tx.q, table, data[table])
        bar.update((done += data[table].length), total)
      }
      // After the imported log (an export carries it), in the same transaction.
      await audit(
        cliDeps(db, config),
        tx,
        commandLine(),
        'workspace.imported',
        { id: null, name: null },
        { details: { records: total, file: path.resolve(file) } },
      )
    })
    process.stdout.write(`imported ${total} records from ${file}\n`)
  } finally {
    await db.close()
  }
}

// One migration set for both dialects: a database made at schema version 1 (the schema files as they were then, kept in
// test/fixtures) and migrated ends exactly like a new one made from today's schema file, with its data carried over.
import assert from 'node:assert/strict'
import Database from 'better-sqlite3'
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'
import pg from 'pg'
import { sql } from 'kysely'
import type { Db } from '../../src/db/database.js'
import { SCHEMA_VERSION } from '../../src/db/migrate.js'
import { openDatabase } from '../../src/db/open.js'
import { openSqlite } from '../../src/db/sqlite.js'
import { freshDatabase, testDialect } from '../helpers/database.js'

const fixture = (name: string) => fs.readFileSync(path.resolve('test/fixtures', name), 'utf8')
const squash = (s: string | null) => (s ?? '').replace(/\s+/g, ' ').trim()

// Data of a version-1 database, the same SQL on both dialects, for the steps that fill new columns.
const T = (day: number) => `'2026-01-0${day}T00:00:00.000Z'`
const V1_DATA = `
INSERT INTO users (id, email, name, role, kind, created_at) VALUES
  ('u1', 'a@x.test', 'A', 'owner', 'human', ${T(1)}), ('u2', 'b@x.test', 'B', 'member', 'human', ${T(1)}), ('u3', 'c@x.test', 'C', 'member', 'human', ${T(1)});
INSERT INTO boards (id, name, description, key_prefix, next_key, created_by, created_at, updated_at) VALUES
  ('b1', 'One', '', 'ONE', 1, 'u1', ${T(1)}, ${T(1)}), ('b2', 'Two', '', 'TWO', 1, 'u1', ${T(1)}, ${T(1)}), ('b3', 'Three', '', 'THR', 1, NULL, ${T(1)}, ${T(1)}),
  ('b4', 'Four', '', 'FOU', 1, NULL, ${T(1)}, ${T(1)});
INSERT INTO board_members (board_id, user_id, created_at) VALUES
  ('b1', 'u1', ${T(1)}), ('b1', 'u2', ${T(2)}), ('b2', 'u3', ${T(3)}), ('b2', 'u2', ${T(2)}), ('b3', 'u3', ${T(1)}),
  ('b4', 'u3', ${T(1)}), ('b4', 'u2', ${T(1)});`
/** Version 6: each board's creator is its admin; a board whose creator is not a member gets its longest-standing member (one). */
const V6_ROLES = [
  { board_id: 'b1', user_id: 'u1', role: 'admin' },
  { board_id: 'b1', user_id: 'u2', role: 'member' },
  { board_id: 'b2', user_id: 'u2', role: 'admin' },
  { board_id: 'b2', user_id: 'u3', role: 'member' },
  { board_id: 'b3', user_id: 'u3', role: 'admin' },
  { board_id: 'b4', user_id: 'u2', role: 'admin' },
  { board_id: 'b4', user_id: 'u3', role: 'member' },
]
const roles = async (db: Db) =>
  (await sql<Record<string, string>>`SELECT board_id, user_id, role FROM board_members ORDER BY board_id, user_id`.execute(db.q)).rows

/** Version 16: a file of version 1 (bytes in one BLOB) is split into chunks of 1 MB with its sha256; an empty one has none. */
const V1_FILE = Buffer.alloc(2_500_000)
for (let i = 0; i < V1_FILE.length; i++) V1_FILE[i] = (i * 7 + (i >> 9)) & 0xff
const V1_LIST_AND_CARDS = `INSERT INTO lists VALUES ('l1', 'b1', 'Todo', 1, 'unstarted', ${T(1)}, ${T(1)});
  INSERT INTO cards (id, board_id, list_id, key_num, key, title, position, created_at, updated_at)
  VALUES ('c1', 'b1', 'l1', 1, 'ONE-1', 'A card', 1, ${T(1)}, ${T(1)}), ('c2', 'b1', 'l1', 2, 'ONE-2', 'Another', 2, ${T(2)}, ${T(2)});`
async function assertFilesChunked(db: Db) {
  const files = (await sql<Record<string, unknown>>`SELECT id, card_id, name, content_type, size, sha256, complete FROM files ORDER BY id`.execute(db.q)).rows
  assert.deepEqual(
    files.map((f) => ({ ...f, size: Number(f.size) })),
    [
      {
        id: 'f1',
        card_id: 'c1',
        name: 'scan.bin',
        content_type: 'application/octet-stream',
        size: V1_FILE.length,
        sha256: crypto.createHash('sha256').update(V1_FILE).digest('hex'),
        complete: 1,
      },
      {
        id: 'f2',
        card_id: 'c2',
        name: 'empty.txt',
        content_type: 'text/plain',
        size: 0,
        sha256: crypto.createHash('sha256').update('').digest('hex'),
        complete: 1,
      },
    ],
  )
  const chunks = (await sql<{ file_id: string; seq: number; data: Buffer }>`SELECT file_id, seq, data FROM file_chunks ORDER BY file_id, seq`.execute(db.q))
    .rows
  assert.deepEqual(
    chunks.map((c) => [c.file_id, Number(c.seq), c.data.length]),
    [
      ['f1', 0, 1_048_576],
      ['f1', 1, 1_048_576],
      ['f1', 2, V1_FILE.length - 2_097_152],
    ],
  )
  assert.ok(Buffer.concat(chunks.map((c) => c.data)).equals(V1_FILE), 'the chunks hold the bytes, in order')
}

function sqliteSchema(file: string) {
  const raw = new Database(file, { readonly: true })
  try {
    const tables = raw.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as { name: string }[]
    return {
      version: raw.pragma('user_version', { simple: true }),
      columns: Object.fromEntries(
        tables.map((t) => [t.name, raw.prepare('SELECT name, type, "notnull", dflt_value, pk FROM pragma_table_xinfo(?)').all(t.name)]),
      ),
      triggers: (raw.prepare("SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name").all() as { sql: string }[]).map((t) => ({
        ...t,
        sql: squash(t.sql),
      })),
      indexes: (
        raw.prepare("SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'index' ORDER BY name").all() as {
          name: string
          tbl_name: string
          sql: string | null
        }[]
      ).map((i) => ({ ...i, sql: squash(i.sql) })),
    }
  } finally {
    raw.close()
  }
}

test('SQLite: a version-1 database migrated has the same tables, columns and indexes as a new one', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-migrate-'))
  try {
    const fresh = path.join(dir, 'fresh.db')
    const old = path.join(dir, 'old.db')
    await openSqlite({ file: fresh, readWorkers: 0 }).close()
    const v1 = new Database(old)
    v1.exec(fixture('schema-v1.sql'))
    v1.exec(V1_DATA)
    v1.exec(`${V1_LIST_AND_CARDS}
      ANALYZE`) // statistics already there: the indexes a migration adds must get theirs too
    const insertFile = v1.prepare('INSERT INTO files (id, card_id, name, mime, size, data, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
    insertFile.run('f1', 'c1', 'scan.bin', 'application/octet-stream', V1_FILE.length, V1_FILE, '2026-01-01T00:00:00.000Z')
    insertFile.run('f2', 'c2', 'empty.txt', 'text/plain', 0, Buffer.alloc(0), '2026-01-01T00:00:00.000Z')
    v1.pragma('user_version = 1')
    v1.close()
    const migrated = openSqlite({ file: old, readWorkers: 0 })
    try {
      assert.deepEqual(await roles(migrated), V6_ROLES)
      await assertFilesChunked(migrated)
      const stats = migrated.raw.prepare("SELECT stat FROM sqlite_stat1 WHERE idx = 'cards_board_position'").all()
      assert.equal(stats.length, 1, 'the planner has statistics for an index a migration added')
      // The search index holds the cards that were there (version 25), and the triggers keep it from then on.
      const found = (text: string) =>
        migrated.raw
          .prepare('SELECT d.kind, d.record_id FROM search_fts JOIN search_docs d ON d.id = search_fts.rowid WHERE search_fts MATCH ? ORDER BY d.record_id')
          .all(text)
      assert.deepEqual(found('card'), [{ kind: 'card', record_id: 'c1' }])
      assert.deepEqual(found('another'), [{ kind: 'card', record_id: 'c2' }])
      migrated.raw.prepare("UPDATE cards SET title = 'Renamed' WHERE id = 'c2'").run()
      assert.deepEqual([found('another'), found('renamed')], [[], [{ kind: 'card', record_id: 'c2' }]])
    } finally {
      await migrated.close()
    }
    const a = sqliteSchema(fresh)
    const b = sqliteSchema(old)
    assert.equal(a.version, SCHEMA_VERSION)
    assert.deepEqual(b, a)
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

async function pgSchema(db: Db) {
  const columns = await sql<Record<string, unknown>>`
    SELECT table_name, column_name, ordinal_position, data_type, is_nullable, column_default, is_identity, identity_generation
    FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, ordinal_position`.execute(db.q)
  const indexes = await sql<Record<string, unknown>>`SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY indexname`.execute(db.q)
  const constraints = await sql<Record<string, unknown>>`
    SELECT conrelid::regclass::text AS tbl, conname, pg_get_constraintdef(oid) AS def FROM pg_constraint
    WHERE connamespace = 'public'::regnamespace ORDER BY tbl, conname`.execute(db.q)
  const triggers = await sql<Record<string, unknown>>`
    SELECT event_object_table, trigger_name, event_manipulation, action_timing, action_condition, action_statement
    FROM information_schema.triggers WHERE trigger_schema = 'public' ORDER BY event_object_table, trigger_name, event_manipulation`.execute(db.q)
  const functions = await sql<Record<string, unknown>>`
    SELECT proname, prosrc FROM pg_proc WHERE pronamespace = 'public'::regnamespace ORDER BY proname`.execute(db.q)
  const version = await sql<{ version: number }>`SELECT version FROM schema_version`.execute(db.q)
  return {
    version: version.rows,
    columns: columns.rows,
    indexes: indexes.rows,
    constraints: constraints.rows,
    triggers: triggers.rows,
    functions: functions.rows,
  }
}

test(
  'PostgreSQL: a version-1 database migrated has the same tables, columns, indexes and constraints as a new one',
  {
    skip: testDialect !== 'postgres' && 'runs in the PostgreSQL run of npm test',
  },
  async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-migrate-'))
    const admin = new pg.Client({ connectionString: process.env.TASKD_TEST_DATABASE_URL })
    const oldName = `taskd_v1_${crypto.randomBytes(6).toString('hex')}`
    const fresh = await freshDatabase(dir)
    await admin.connect()
    try {
      await admin.query(`CREATE DATABASE ${oldName} TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'`)
      const oldUrl = new URL(process.env.TASKD_TEST_DATABASE_URL!)
      oldUrl.pathname = `/${oldName}`
      const v1 = new pg.Client({ connectionString: oldUrl.toString() })
      await v1.connect()
      try {
        await v1.query(fixture('schema-v1.pg.sql'))
        await v1.query(V1_DATA)
        await v1.query(V1_LIST_AND_CARDS)
        const insertFile = 'INSERT INTO files (id, card_id, name, mime, size, data, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)'
        await v1.query(insertFile, ['f1', 'c1', 'scan.bin', 'application/octet-stream', V1_FILE.length, V1_FILE, '2026-01-01T00:00:00.000Z'])
        await v1.query(insertFile, ['f2', 'c2', 'empty.txt', 'text/plain', 0, Buffer.alloc(0), '2026-01-01T00:00:00.000Z'])
        await v1.query('CREATE TABLE schema_version (version INTEGER NOT NULL); INSERT INTO schema_version VALUES (1)')
      } finally {
        await v1.end()
      }
      const a = await openDatabase({ db: '', databaseUrl: fresh.databaseUrl })
      try {
        const b = await openDatabase({ db: '', databaseUrl: oldUrl.toString() })
        try {
          const [sa, sb] = [await pgSchema(a), await pgSchema(b)]
          assert.deepEqual(sa.version, [{ version: SCHEMA_VERSION }])
          assert.deepEqual(sb, sa)
          assert.deepEqual(await roles(b), V6_ROLES)
          await assertFilesChunked(b)
          // The search index holds the cards that were there (version 25), and the triggers keep it from then on.
          const found = async (text: string) =>
            (
              await sql<{ kind: string; record_id: string }>`SELECT kind, record_id FROM search_docs
                WHERE tsv @@ phraseto_tsquery('simple', ${text}) ORDER BY record_id`.execute(b.q)
            ).rows
          assert.deepEqual(await found('card'), [{ kind: 'card', record_id: 'c1' }])
          assert.deepEqual(await found('another'), [{ kind: 'card', record_id: 'c2' }])
          await sql`UPDATE cards SET title = 'Renamed' WHERE id = 'c2'`.execute(b.q)
          assert.deepEqual([await found('another'), await found('renamed')], [[], [{ kind: 'card', record_id: 'c2' }]])
        } finally {
          await b.close()
        }
      } finally {
        await a.close()
      }
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS ${oldName} WITH (FORCE)`)
      await admin.end()
      await fresh.drop()
      fs.rmSync(dir, { recursive: true, force: true })
    }
  },
)

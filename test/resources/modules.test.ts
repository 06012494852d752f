// What the families bring, checked against the database and the central lists built from them: every table of the
// schema is exported by a family or left out with a reason, and the export and MCP lists are the families' own.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { EXPORTED } from '../../src/resources/actions/store.js'
import { MCP_TOOLS as TOOLS, MODULES } from '../../src/resources/index.js'
import { startTestApp } from '../helpers/app.js'
import { testDialect } from '../helpers/database.js'
import { dbAll } from '../helpers/db.js'

/** The migrations' own bookkeeping (PostgreSQL; SQLite keeps the version in user_version): no family's table. */
const MIGRATION_TABLES = new Set(['schema_version'])

const TABLES_SQL =
  testDialect === 'postgres'
    ? "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'"
    : // Ordinary tables: a virtual table (the search index's FTS5 table) and its shadow tables belong to search_docs.
      "SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'"

test('every table of the schema is exported by one family or left out by one with a reason', async () => {
  const t = await startTestApp()
  try {
    const tables = (await dbAll<{ name: string }>(t.deps.db, TABLES_SQL)).map((r) => r.name).filter((n) => !MIGRATION_TABLES.has(n))
    assert.ok(tables.length > 40 && tables.includes('cards') && tables.includes('outbox'), 'the schema was read')
    const exported = MODULES.flatMap((m) => (m.exports ?? []).map((e) => e.table as string))
    const left = MODULES.flatMap((m) => Object.entries(m.notExported ?? {}))
    for (const [table, reason] of left) assert.ok(typeof reason === 'string' && reason.length > 10, `${table}: a reason`)
    const claimed = [...exported, ...left.map(([table]) => table)]
    assert.equal(new Set(claimed).size, claimed.length, 'no table is claimed twice')
    for (const table of tables) assert.ok(claimed.includes(table), `${table} is neither exported nor left out with a reason by a family`)
    for (const table of claimed) assert.ok(tables.includes(table), `${table} is claimed by a family but not in the schema`)
  } finally {
    await t.close()
  }
})

test('the export carries the families’ tables in module order, parents before children', () => {
  assert.deepEqual(
    EXPORTED,
    MODULES.flatMap((m) => (m.exports ?? []).map((e) => e.table)),
  )
  // A spot-check of the order an import relies on, so the test fails if the list empties or reorders.
  const at = (table: string) => EXPORTED.indexOf(table as never)
  assert.equal(EXPORTED[0], 'workspace')
  for (const [parent, child] of [
    ['users', 'boards'],
    ['boards', 'lists'],
    ['lists', 'cards'],
    ['cards', 'card_tags'],
    ['tags', 'card_tags'],
    ['cards', 'comments'],
    ['note_folders', 'notes'],
  ])
    assert.ok(at(parent) >= 0 && at(parent) < at(child), `${parent} before ${child}`)
  for (const secret of ['tokens', 'webhooks', 'signing_secrets', 'automation_secrets']) assert.equal(at(secret), -1, `${secret} stays out`)
})

test('the MCP tools are the families’ own, each name once', () => {
  const own = MODULES.flatMap((m) => m.mcpTools ?? [])
  assert.deepEqual(TOOLS.map((tool) => tool.name).sort(), own.map((tool) => tool.name).sort())
  assert.equal(new Set(TOOLS.map((tool) => tool.name)).size, TOOLS.length)
  assert.equal(TOOLS[0].name, 'whoami')
})

// taskd import keeps the API's limits: an export whose comment (or card, or note) text is longer than the API would
// take is refused with where and why, and nothing of it is written.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'
import { seededApp } from '../helpers/app.js'
import { runCli } from '../helpers/cli.js'
import { freshDatabase, type TestDatabase } from '../helpers/database.js'

const target = (d: { databaseUrl?: string; db: string }) => d.databaseUrl ?? d.db

test('taskd import refuses a comment past 100,000 characters and a card title past 500, and writes nothing', async () => {
  const s = await seededApp()
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-import-limits-'))
  let empty: TestDatabase | undefined
  try {
    const tok = s.tokens.owner.write
    const card = (await s.t.req('POST', '/v1/cards', { token: tok, body: { board: s.board.id, title: 'Ship it' } })).body.card
    assert.equal((await s.t.req('POST', '/v1/comments', { token: tok, body: { card: card.id, body: 'Short' } })).status, 201)
    const file = path.join(dir, 'export.json')
    const exported = await runCli(['export', '--db', target({ db: s.t.dbFile, databaseUrl: s.t.deps.config.databaseUrl }), '--out', file])
    assert.equal(exported.status, 0, exported.stderr)
    const data = JSON.parse(fs.readFileSync(file, 'utf8'))
    data.comments[0].body = 'x'.repeat(300_000)
    data.cards[0].title = 'y'.repeat(600)
    const crafted = path.join(dir, 'crafted.json')
    fs.writeFileSync(crafted, JSON.stringify(data))

    empty = await freshDatabase(fs.mkdtempSync(path.join(dir, 'empty-')))
    const refused = await runCli(['import', '--db', target(empty), crafted])
    assert.equal(refused.status, 1, refused.stdout)
    assert.match(refused.stderr, /comments\[0\]\.body: At most 100,000 characters/)
    assert.match(refused.stderr, /cards\[0\]\.title: /)
    // Nothing was written: the database takes the export as it came.
    const imported = await runCli(['import', '--db', target(empty), file])
    assert.equal(imported.status, 0, imported.stderr)
  } finally {
    await s.t.close()
    await empty?.drop()
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

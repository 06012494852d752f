// SQL semantics: filters run on a real database with the taskd schema (SQLite, or PostgreSQL in npm test's PostgreSQL
// run) and return exactly the right rows.
import crypto from 'node:crypto'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, before, suite, test } from 'node:test'
import type { Db } from '../../src/db/database.js'
import { openDatabase } from '../../src/db/open.js'
import { freshDatabase, type TestDatabase } from '../helpers/database.js'
import { dbRunMany } from '../helpers/db.js'
import { filterExpression } from '../../src/filter/index.js'
import '../../src/resources/index.js' // registers the families' filter field maps

let db: Db
let database: TestDatabase
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-semantics-'))
const T0 = '2026-01-01T00:00:00.000Z'

after(async () => {
  await db?.close()
  await database?.drop()
  fs.rmSync(dir, { recursive: true, force: true })
})

before(async () => {
  database = await freshDatabase(dir)
  db = await openDatabase({ ...database, readWorkers: 0 })
  const run = (text: string, ...rows: unknown[][]) => dbRunMany(db, text, rows)
  await run(
    'INSERT INTO users (id, email, name, role, kind, created_at) VALUES (?, ?, ?, ?, ?, ?)',
    ['u1', 'ann@x.io', 'Ann', 'owner', 'human', T0],
    ['u2', 'bob@x.io', 'Bob', 'member', 'human', T0],
    ['u3', 'cy@x.io', 'Cy', 'admin', 'agent', '2026-03-01T00:00:00.000Z'],
  )
  await run(
    'INSERT INTO boards (id, name, key_prefix, created_by, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
    ['b1', 'Alpha', 'AL', 'u1', T0, T0],
    ['b2', 'Beta', 'BE', null, T0, T0],
  )
  await run('INSERT INTO board_members (board_id, user_id, created_at) VALUES (?, ?, ?)', ['b1', 'u1', T0], ['b1', 'u2', T0], ['b2', 'u3', T0])
  await run(
    'INSERT INTO lists (id, board_id, name, position, category, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ['l1', 'b1', 'Todo', 1, 'unstarted', T0, T0],
    ['l2', 'b1', 'Doing', 2, 'started', T0, T0],
    ['l3', 'b2', 'Done', 1, 'completed', T0, T0],
  )
  await run(
    'INSERT INTO tags (id, board_id, name, color, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
    ['t1', 'b1', 'Bug', 'red', T0, T0],
    ['t2', 'b1', '50%_off', null, T0, T0],
    ['t3', 'b2', 'ui', null, T0, T0],
  )
  await run(
    `INSERT INTO cards (id, board_id, list_id, key_num, key, title, description, position, priority, due_date,
      completed, completed_at, archived, created_by, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ['c1', 'b1', 'l1', 1, 'AL-1', 'Fix 50% discount', '', 1, 3, '2026-05-01', 0, null, 0, 'u1', '2026-04-01T10:00:00.000Z', T0],
    ['c2', 'b1', 'l2', 2, 'AL-2', 'Fix 50x discount', '', 2, 1, '2026-05-01T23:30:00.000Z', 0, null, 0, 'u2', '2026-04-02T00:00:00.000Z', T0],
    ['c3', 'b1', 'l2', 3, 'AL-3', 'snake_case name', '', 3, 0, null, 1, '2026-04-05T12:00:00.000Z', 0, null, '2026-04-02T23:59:59.999Z', T0],
    ['c4', 'b2', 'l3', 1, 'BE-1', 'snakeXcase', '', 1, 4, '2026-05-02', 0, null, 1, 'u3', '2026-04-03T00:00:00.000Z', T0],
    ['c5', 'b2', 'l3', 2, 'BE-2', 'Other', "Ann's notes", 2, 2, '2026-04-30T23:59:59.999Z', 0, null, 0, 'u3', '2026-04-04T00:00:00.000Z', T0],
  )
  await run('INSERT INTO card_assignees (card_id, user_id) VALUES (?, ?)', ['c1', 'u1'], ['c2', 'u1'], ['c2', 'u2'], ['c4', 'u3'])
  await run('INSERT INTO card_watchers (card_id, user_id) VALUES (?, ?)', ['c3', 'u2'])
  await run('INSERT INTO card_tags (card_id, tag_id) VALUES (?, ?)', ['c1', 't1'], ['c2', 't2'], ['c4', 't3'])
  await run('INSERT INTO files (id, card_id, name, content_type, size, sha256, complete, created_at) VALUES (?, ?, ?, ?, ?, ?, 1, ?)', [
    'f1',
    'c3',
    'spec.pdf',
    'application/pdf',
    3,
    crypto.createHash('sha256').update('pdf').digest('hex'),
    T0,
  ])
  await run(
    'INSERT INTO tokens (id, user_id, name, permission, hash, prefix, expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    ['k1', 'u1', 'ci', 'write', 'h1', 'tk_a', '2027-01-01T00:00:00.000Z', T0],
    ['k2', 'u3', 'agent', 'full', 'h2', 'tk_b', null, T0],
  )
})

type Resource = 'cards' | 'boards' | 'lists' | 'users' | 'tokens' | 'tags'
async function ids(resource: Resource, filter: string): Promise<string[]> {
  const f = filterExpression(resource, filter)
  let q = db.q.selectFrom(resource).select(`${resource}.id`)
  if (f) q = q.where(f)
  return (await q.execute()).map((r) => r.id).sort()
}

const CARDS: [string, string[]][] = [
  // text: case-insensitive substring, % and _ literal
  ['title ~ "50%"', ['c1']],
  ['title ~ "_case"', ['c3']],
  ['title ~ "FIX"', ['c1', 'c2']],
  ['title !~ "fix"', ['c3', 'c4', 'c5']],
  ['description ~ "ann\'s"', ['c5']],
  ['title = "Other"', ['c5']],
  ['key = "AL-2"', ['c2']],
  // null
  ['due_date = null', ['c3']],
  ['due_date != null', ['c1', 'c2', 'c4', 'c5']],
  ['created_by = null', ['c3']],
  ['created_by.email = null', ['c3']],
  ['board.created_by = null', ['c4', 'c5']],
  // dates: a day literal is a whole UTC day, for bare and full stored values
  ['due_date = "2026-05-01"', ['c1', 'c2']],
  ['due_date != "2026-05-01"', ['c4', 'c5']],
  ['due_date > "2026-05-01"', ['c4']],
  ['due_date < "2026-05-01"', ['c5']],
  ['due_date <= "2026-05-01"', ['c1', 'c2', 'c5']],
  ['due_date >= "2026-05-01T12:00:00Z"', ['c2', 'c4']],
  ['due_date = "2026-05-02T00:00:00.000Z"', ['c4']],
  ['due_date < "2026-05-01T02:00:00+02:00"', ['c5']],
  ['due_date < "2026-05-01T01:00:00+02:00"', []],
  ['created = "2026-04-02"', ['c2', 'c3']],
  ['created > "2026-04-02"', ['c4', 'c5']],
  ['created >= "2026-04-02T23:59:59.999Z"', ['c3', 'c4', 'c5']],
  ['completed_at < "2026-04-06"', ['c3']],
  // booleans, numbers, enums, ids
  ['completed = true', ['c3']],
  ['!completed = true', ['c1', 'c2', 'c4', 'c5']],
  ['archived != false', ['c4']],
  ['priority >= 3', ['c1', 'c4']],
  ['position = 1', ['c1', 'c4']],
  ['state = "started"', ['c2', 'c3']],
  ['list.category != "started"', ['c1', 'c4', 'c5']],
  ['board = "b2"', ['c4', 'c5']],
  // negation and precedence
  ['!(title ~ "fix")', ['c3', 'c4', 'c5']],
  ['priority = 3 || priority = 1 && completed = true', ['c1']],
  ['(priority = 3 || priority = 1) && completed = false', ['c1', 'c2']],
  ['priority >= 2 && !(board.name = "Beta")', ['c1']],
  ['!(priority = 0 || board = "b2") && title ~ "fix"', ['c1', 'c2']],
  ['!!archived = true', ['c4']],
  // membership: tags by id or name (case-insensitive), users by id, files by id
  ['tags ~ "bug"', ['c1']],
  ['tags ~ "t2"', ['c2']],
  ['tags ~ "50%_OFF"', ['c2']],
  ['tags ~ "50"', []],
  ['tags !~ "bug"', ['c2', 'c3', 'c4', 'c5']],
  // on one board, the board's tags looked up once: same answers
  ['board = "b1" && tags ~ "BUG"', ['c1']],
  ['board = "b1" && tags ~ "t2"', ['c2']],
  ['board = "b1" && tags ~ "t3"', []],
  ['board = "b2" && tags ~ "ui"', ['c4']],
  ['board = "b1" && tags !~ "bug"', ['c2', 'c3']],
  ['board = "b1" && !(tags ~ "bug" || tags ~ "50%_off")', ['c3']],
  ['board = "b1" && (tags ~ "bug" || priority = 0)', ['c1', 'c3']],
  ['tags.name ~ "%"', ['c2']],
  ['tags.color = "red"', ['c1']],
  ['assignees ~ "u1"', ['c1', 'c2']],
  ['members ~ "u2"', ['c2']],
  ['assignees !~ "u1"', ['c3', 'c4', 'c5']],
  ['assignees ~ "Ann"', []],
  ['watchers ~ "u2"', ['c3']],
  ['files ~ "f1"', ['c3']],
  ['files !~ "f1"', ['c1', 'c2', 'c4', 'c5']],
  ['files.name ~ ".PDF"', ['c3']],
  // relation paths
  ['assignees.name ~ "bo"', ['c2']],
  ['assignees.name != "Ann"', ['c3', 'c4', 'c5']],
  ['assignees.kind = "agent"', ['c4']],
  ['board.name = "Beta"', ['c4', 'c5']],
  ['board.key_prefix = "AL"', ['c1', 'c2', 'c3']],
  ['board.members ~ "u3"', ['c4', 'c5']],
  ['board.members !~ "u1"', ['c4', 'c5']],
  ['board.members.name ~ "bob"', ['c1', 'c2', 'c3']],
  ['list.name ~ "ON"', ['c4', 'c5']],
  ['created_by.name = "Ann"', ['c1']],
  ['created_by.name != "Ann"', ['c2', 'c4', 'c5']],
  ['board.created_by.email ~ "ann@"', ['c1', 'c2', 'c3']],
  ['tags.board.name = "Beta"', ['c4']],
]

// Subtests are registered while the file loads (suite), so a forced exit can never end the run before they are known.
suite('card filters select exactly the right cards', () => {
  for (const [filter, expected] of CARDS) test(filter, async () => assert.deepEqual(await ids('cards', filter), expected))
})

const OTHERS: [Resource, string, string[]][] = [
  ['boards', 'members ~ "u1"', ['b1']],
  ['boards', 'members.kind = "agent" || created_by = "u1"', ['b1', 'b2']],
  ['boards', 'created_by.name = "Ann"', ['b1']],
  ['lists', 'board.name = "Alpha" && category != "started"', ['l1']],
  ['users', 'kind = "agent"', ['u3']],
  ['users', 'role = "owner" || created > "2026-02-01"', ['u1', 'u3']],
  ['users', 'email = "ANN@x.io"', ['u1']],
  ['tags', 'board.name = "Alpha"', ['t1', 't2']],
  ['tags', 'color = null', ['t2', 't3']],
  ['tokens', 'owner.name = "Ann"', ['k1']],
  ['tokens', 'expires_at = null || permission = "write"', ['k1', 'k2']],
  ['tokens', 'expires_at > "2026-12-31"', ['k1']],
]

suite('filters on other resources', () => {
  for (const [resource, filter, expected] of OTHERS) test(`${resource}: ${filter}`, async () => assert.deepEqual(await ids(resource, filter), expected))
})

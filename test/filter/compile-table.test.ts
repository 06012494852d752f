// Compile table: filter → exact SQL and bound parameters, per resource. Values never appear in the SQL text.
import assert from 'node:assert/strict'
import { suite, test } from 'node:test'
import { Kysely, SqliteDialect } from 'kysely'
import type { DB } from '../../src/db/types.js'
import { applyFilter, filterExpression } from '../../src/filter/index.js'
import '../../src/resources/index.js' // registers the families' filter field maps

// Kysely's own SQLite compiler, which never connects: the tables show the SQL the filter compiler writes (taskd's SQLite
// dialect then writes each parameter as +?, src/db/sqlite.ts).
const qb = new Kysely<DB>({
  dialect: new SqliteDialect({
    database: async () => {
      throw new Error('only compiled here')
    },
  }),
})

type Table = 'cards' | 'boards' | 'lists' | 'users' | 'tokens' | 'tags'

function compiled(resource: Table, input: string): { sql: string; params: readonly unknown[] } {
  const f = filterExpression(resource, input)
  assert.ok(f)
  const q = qb.selectFrom(resource).select(`${resource}.id`).where(f).compile()
  const prefix = `select "${resource}"."id" from "${resource}" where `
  assert.ok(q.sql.startsWith(prefix), q.sql)
  return { sql: q.sql.slice(prefix.length), params: q.parameters }
}

const T = '"cards"."title"'
const DUE = '"cards"."due_date"'
const MIXED_DUE = `(case when length(${DUE}) = 10 then ${DUE} || 'T00:00:00.000Z' else ${DUE} end)`

const CASES: [Table, string, string, unknown[]][] = [
  ['cards', 'title ~ "50%_"', `lower(${T}) like '%' || lower(?) || '%' escape '\\'`, ['50\\%\\_']],
  ['cards', 'title !~ "x"', `lower(${T}) not like '%' || lower(?) || '%' escape '\\'`, ['x']],
  ['cards', 'title = "a\\"b"', `${T} = ?`, ['a"b']],
  ['cards', 'title = "x\' OR 1=1 --"', `${T} = ?`, ["x' OR 1=1 --"]],
  ['cards', 'completed = true', '"cards"."completed" = ?', [1]],
  ['cards', 'archived != false', '"cards"."archived" != ?', [0]],
  ['cards', 'priority >= 3', '"cards"."priority" >= ?', [3]],
  ['cards', 'position < -0.5', '"cards"."position" < ?', [-0.5]],
  ['cards', 'id = "c1"', '"cards"."id" = ?', ['c1']],
  ['cards', 'board = "b1"', '"cards"."board_id" = ?', ['b1']],
  ['cards', 'list != "l1"', '"cards"."list_id" != ?', ['l1']],
  ['cards', 'due_date = null', `${DUE} is null`, []],
  ['cards', 'completed_at != null', '"cards"."completed_at" is not null', []],
  ['cards', 'due_date = "2026-05-01"', `(${DUE} >= ? and ${DUE} < ?)`, ['2026-05-01', '2026-05-02']],
  ['cards', 'due_date != "2026-12-31"', `(${DUE} < ? or ${DUE} >= ?)`, ['2026-12-31', '2027-01-01']],
  ['cards', 'created > "2028-02-28"', '"cards"."created_at" >= ?', ['2028-02-29']],
  ['cards', 'created >= "2026-05-01"', '"cards"."created_at" >= ?', ['2026-05-01']],
  ['cards', 'created < "2026-05-01"', '"cards"."created_at" < ?', ['2026-05-01']],
  ['cards', 'updated <= "9999-12-31"', '"cards"."updated_at" < ?', ['9999-12-32']],
  ['cards', 'created < "2026-05-01T10:00:00+02:00"', '"cards"."created_at" < ?', ['2026-05-01T08:00:00.000Z']],
  ['cards', 'created = "2026-05-01T10:00:00.123456Z"', '"cards"."created_at" = ?', ['2026-05-01T10:00:00.123Z']],
  ['cards', 'created > "2026-05-01T10:00"', '"cards"."created_at" > ?', ['2026-05-01T10:00:00.000Z']],
  ['cards', 'due_date >= "2026-05-01T00:00:00Z"', `${MIXED_DUE} >= ?`, ['2026-05-01T00:00:00.000Z']],
  ['cards', 'state = "started"', '(select "t1"."category" from "lists" as "t1" where "t1"."id" = "cards"."list_id") = ?', ['started']],
  [
    'cards',
    'board.name ~ "x"',
    `lower((select "t1"."name" from "boards" as "t1" where "t1"."id" = "cards"."board_id")) like '%' || lower(?) || '%' escape '\\'`,
    ['x'],
  ],
  ['cards', 'created_by.email = null', '(select "t1"."email" from "users" as "t1" where "t1"."id" = "cards"."created_by") is null', []],
  [
    'cards',
    'board.created_by.name = "Ann"',
    '(select "t2"."name" from "boards" as "t1" join "users" as "t2" on "t2"."id" = "t1"."created_by" where "t1"."id" = "cards"."board_id") = ?',
    ['Ann'],
  ],
  [
    'cards',
    'assignees ~ "u1"',
    '"cards"."id" in (select "j1"."card_id" from "card_assignees" as "j1" where "j1"."card_id" is not null and "j1"."user_id" = ?)',
    ['u1'],
  ],
  ['cards', 'members !~ "u1"', 'not exists (select 1 from "card_assignees" as "j1" where "j1"."card_id" = "cards"."id" and "j1"."user_id" = ?)', ['u1']],
  [
    'cards',
    'watchers ~ "u2"',
    '"cards"."id" in (select "j1"."card_id" from "card_watchers" as "j1" where "j1"."card_id" is not null and "j1"."user_id" = ?)',
    ['u2'],
  ],
  [
    'cards',
    'tags ~ "Bug"',
    '"cards"."id" in (select "j1"."card_id" from "card_tags" as "j1" join "tags" as "t1" on "t1"."id" = "j1"."tag_id" where "j1"."card_id" is not null and ("t1"."id" = ? or lower("t1"."name") = lower(?)))',
    ['Bug', 'Bug'],
  ],
  [
    'cards',
    'board = "b1" && tags ~ "Bug"',
    // On one board: that board's tags of the name, found once (a card's tags are its board's).
    '("cards"."board_id" = ? and exists (select 1 from "card_tags" as "j1" where "j1"."card_id" = "cards"."id" and "j1"."tag_id" in (select "t1"."id" from "tags" as "t1" where "t1"."board_id" = ? and ("t1"."id" = ? or lower("t1"."name") = lower(?)))))',
    ['b1', 'b1', 'Bug', 'Bug'],
  ],
  [
    'cards',
    'board = "b1" && (tags ~ "a" || watchers ~ "u1")',
    '("cards"."board_id" = ? and (exists (select 1 from "card_tags" as "j1" where "j1"."card_id" = "cards"."id" and "j1"."tag_id" in (select "t1"."id" from "tags" as "t1" where "t1"."board_id" = ? and ("t1"."id" = ? or lower("t1"."name") = lower(?)))) or exists (select 1 from "card_watchers" as "j1" where "j1"."card_id" = "cards"."id" and "j1"."user_id" = ?)))',
    ['b1', 'b1', 'a', 'a', 'u1'],
  ],
  ['cards', 'files ~ "f1"', '"cards"."id" in (select "t1"."card_id" from "files" as "t1" where "t1"."card_id" is not null and "t1"."id" = ?)', ['f1']],
  [
    'cards',
    'assignees.name ~ "ann"',
    `"cards"."id" in (select "j1"."card_id" from "card_assignees" as "j1" join "users" as "t1" on "t1"."id" = "j1"."user_id" where "j1"."card_id" is not null and lower("t1"."name") like '%' || lower(?) || '%' escape '\\')`,
    ['ann'],
  ],
  [
    'cards',
    'assignees.email != "a@x.io"',
    'not exists (select 1 from "card_assignees" as "j1" join "users" as "t1" on "t1"."id" = "j1"."user_id" where "j1"."card_id" = "cards"."id" and lower("t1"."email") = lower(?))',
    ['a@x.io'],
  ],
  [
    'cards',
    'board.members ~ "u1"',
    '"cards"."board_id" in (select "t1"."id" from "boards" as "t1" join "board_members" as "j2" on "j2"."board_id" = "t1"."id" where "t1"."id" is not null and "j2"."user_id" = ?)',
    ['u1'],
  ],
  [
    'cards',
    'tags.created > "2026-01-01"',
    '"cards"."id" in (select "j1"."card_id" from "card_tags" as "j1" join "tags" as "t1" on "t1"."id" = "j1"."tag_id" where "j1"."card_id" is not null and "t1"."created_at" >= ?)',
    ['2026-01-02'],
  ],
  ['cards', '!(title ~ "a" || priority = 1)', `not (lower(${T}) like '%' || lower(?) || '%' escape '\\' or "cards"."priority" = ?)`, ['a', 1]],
  ['cards', 'title = "a" && priority = 1 || trashed = true', `((${T} = ? and "cards"."priority" = ?) or "cards"."trashed" = ?)`, ['a', 1, 1]],
  ['cards', '!completed = true && !!archived = false', '(not ("cards"."completed" = ?) and not (not ("cards"."archived" = ?)))', [1, 0]],
  [
    'boards',
    'members.email ~ "x"',
    `"boards"."id" in (select "j1"."board_id" from "board_members" as "j1" join "users" as "t1" on "t1"."id" = "j1"."user_id" where "j1"."board_id" is not null and lower("t1"."email") like '%' || lower(?) || '%' escape '\\')`,
    ['x'],
  ],
  ['boards', 'key_prefix = "AL" && created_by = null', '("boards"."key_prefix" = ? and "boards"."created_by" is null)', ['AL']],
  ['tokens', 'owner.name = "Ann"', '(select "t1"."name" from "users" as "t1" where "t1"."id" = "tokens"."user_id") = ?', ['Ann']],
  ['tokens', 'permission = "full" && expires_at < "2027-01-01"', '("tokens"."permission" = ? and "tokens"."expires_at" < ?)', ['full', '2027-01-01']],
  [
    'lists',
    'category = "started" && board.name = "B"',
    '("lists"."category" = ? and (select "t1"."name" from "boards" as "t1" where "t1"."id" = "lists"."board_id") = ?)',
    ['started', 'B'],
  ],
  ['tags', 'color = null || board = "b1"', '("tags"."color" is null or "tags"."board_id" = ?)', ['b1']],
  ['users', 'role = "admin" || kind = "agent"', '("users"."role" = ? or "users"."kind" = ?)', ['admin', 'agent']],
]

suite('filters compile to the expected SQL with bound parameters', () => {
  for (const [resource, input, sql, params] of CASES) test(`${resource}: ${input}`, () => assert.deepEqual(compiled(resource, input), { sql, params }))
})

test('empty and absent filters add nothing', () => {
  for (const input of ['', '   ', null, undefined]) assert.equal(filterExpression('cards', input), null)
})

test('applyFilter adds the filter to a select query, or leaves it as it was', () => {
  const base = qb.selectFrom('cards').select('cards.id').where('cards.trashed', '=', 0)
  assert.equal(applyFilter(base, 'cards', ''), base)
  const q = applyFilter(base, 'cards', 'priority > 2').compile()
  assert.equal(q.sql, 'select "cards"."id" from "cards" where "cards"."trashed" = ? and "cards"."priority" > ?')
  assert.deepEqual(q.parameters, [0, 2])
})

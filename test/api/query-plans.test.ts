// The common card filters use an index: EXPLAIN QUERY PLAN of the real list queries never scans the cards table. Custom
// fields (`xattr.<key>`) are filtered and sorted from their value index, on 20,000 of the cards.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { openSqlite } from '../../src/db/sqlite.js'
import { keyedListQueries, listQueries } from '../../src/query/list-page.js'
import '../../src/resources/index.js'
import { CARD_LIST } from '../../src/resources/cards/query.js'
import { seesMostBoards } from '../../src/access/visibility.js'
import { cardListQueries } from '../../src/resources/cards/store.js'
import type { ListCategory } from '../../src/resources/lists/schema.js'
import { XATTR_SORT } from '../../src/resources/xattr/query.js'

const sql = openSqlite({ file: ':memory:', readWorkers: 0 })
// A realistic spread of data, analyzed, so the planner chooses as it would on a real database.
sql.raw
  .transaction(() => {
    const ins = (q: string, ...v: unknown[]) => sql.raw.prepare(q).run(...v)
    for (let u = 1; u <= 31; u++) ins("INSERT INTO users VALUES (?, ?, ?, 'member', 'human', '2026-01-01')", `u${u}`, `u${u}@x`, `U${u}`)
    for (let b = 1; b <= 20; b++) {
      ins("INSERT INTO boards VALUES (?, 'B', '', 'B', 1, 'u1', '2026-01-01', '2026-01-01', NULL, NULL, NULL, NULL)", `b${b}`)
      for (let u = 1; u <= 5; u++) ins("INSERT INTO board_members VALUES (?, ?, '2026-01-01', 'member')", `b${b}`, `u${((b + u) % 30) + 1}`)
      for (let l = 1; l <= 3; l++)
        ins(
          "INSERT INTO lists VALUES (?, ?, 'L', ?, ?, '2026-01-01', '2026-01-01', NULL)",
          `b${b}l${l}`,
          `b${b}`,
          l,
          ['unstarted', 'started', 'completed'][l - 1],
        )
      // u31, a member of 12 of the 20 boards: most of the workspace.
      if (b <= 12) ins("INSERT INTO board_members VALUES (?, 'u31', '2026-01-01', 'member')", `b${b}`)
      for (let t = 1; t <= 5; t++)
        ins("INSERT INTO tags VALUES (?, ?, ?, NULL, '2026-01-01', '2026-01-01')", `b${b}t${t}`, `b${b}`, ['bug', 'ops', 'ux', 'api', 'docs'][t - 1])
    }
    const card = sql.raw.prepare(
      "INSERT INTO cards (id, board_id, list_id, key_num, key, title, position, priority, due_date, completed, archived, trashed, created_by, created_at, updated_at) VALUES (?, ?, ?, ?, 'K', 'title', ?, ?, ?, ?, ?, ?, 'u1', ?, ?)",
    )
    const link = sql.raw.prepare('INSERT INTO card_assignees VALUES (?, ?)')
    const tag = sql.raw.prepare('INSERT INTO card_tags VALUES (?, ?)')
    for (let i = 0; i < 100_000; i++) {
      // 5,000 cards per board, as in bench/: the planner weighs reading a board in page order against sorting its matches
      const b = (i % 20) + 1,
        created = new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString()
      card.run(
        `c${i}`,
        `b${b}`,
        `b${b}l${(i % 3) + 1}`,
        i + 1,
        i,
        Math.floor(i / 20) % 5, // every priority and tag on every board (i % 20 is the board)
        i % 4 ? `2026-${String((i % 12) + 1).padStart(2, '0')}-15` : null,
        i % 7 === 0 ? 1 : 0,
        i % 11 === 0 ? 1 : 0,
        i % 50 === 0 ? 1 : 0,
        created,
        created,
      )
      link.run(`c${i}`, `u${(i % 30) + 1}`)
      tag.run(`c${i}`, `b${b}t${((Math.floor(i / 20) * 3) % 5) + 1}`)
    }
  })
  .immediate()
sql.raw.exec('ANALYZE')

const cases: [string, Record<string, string>][] = [
  ['board', { board: 'b1' }],
  ['list', { list: 'l1' }],
  ['state', { state: 'started,unstarted' }],
  ['assignee=me', { assignee: 'me' }],
  ['assignee id', { assignee: 'u2' }],
  ['completed', { completed: 'true' }],
  ['archived', { archived: 'false' }],
  ['trashed', { trashed: 'true' }],
  ['filter board', { filter: 'board="b1"' }],
  ['filter due_date', { filter: 'due_date = "2026-05-15"' }],
  ['filter due before', { filter: 'due_date < "2026-02-01"' }],
  ['filter priority', { filter: 'priority >= 3' }],
  ['filter created', { filter: 'created > "2026-11-01"' }],
  ['filter tag', { filter: 'tags ~ "bug"' }],
  ['filter assignee', { filter: 'assignees ~ "u2"' }],
  ['selective bench filter', { filter: 'board="b1" && priority>=3 && tags~"bug"' }],
  ['board + completed + sort', { board: 'b1', completed: 'false', sort: '-created' }],
  ['board + due sort', { board: 'b1', sort: 'due_date' }],
]

// A member sees the boards they belong to, owners and admins every board: both shapes of the visibility subquery.
const viewers = [
  { id: 'u2', role: 'member' as const },
  { id: 'u1', role: 'admin' as const },
]

/** A member of most boards (12 of 20), whose list across boards is read as an admin's is. */
const wideMember = { id: 'u31', role: 'member' as const }

type Params = Record<string, string | undefined>
type Viewer = { id: string; role: 'member' | 'admin' }
/** The count and the page of a card list request, as the route builds them (seesMost: as listCards decides it). */
async function listOf(viewer: Viewer, params: Params, seesMost?: boolean) {
  const query = {
    ...params,
    trashed: params.trashed === 'true',
    completed: params.completed === undefined ? undefined : params.completed === 'true',
    archived: params.archived === undefined ? undefined : params.archived === 'true',
    state: params.state?.split(',') as ListCategory[] | undefined,
  }
  const { base, countBase } = cardListQueries(sql.q, viewer, query, seesMost ?? (await seesMostBoards(sql.q, viewer)))
  return listQueries(
    base,
    CARD_LIST,
    { page: 1, per_page: 50, sort: params.sort, filter: params.filter },
    { anchored: Boolean(params.board || params.list), countBase },
  )
}
/** EXPLAIN QUERY PLAN of the count and of the page of a card list request, as the route builds them. */
async function plans(viewer: Viewer, params: Params) {
  const { count, rows } = await listOf(viewer, params)
  const plan = (q: typeof count | typeof rows) => {
    const c = q.compile()
    return (sql.raw.prepare(`EXPLAIN QUERY PLAN ${c.sql}`).all(...c.parameters.map((p) => (p === true ? 1 : p === false ? 0 : p))) as { detail: string }[]).map(
      (p) => p.detail,
    )
  }
  return { count: plan(count), rows: plan(rows) }
}

for (const [name, params] of cases)
  for (const viewer of viewers) {
    test(`query plan: ${name} uses an index on cards (${viewer.role})`, async () => {
      for (const plan of Object.values(await plans(viewer, params))) {
        const scans = plan.filter((d) => /^SCAN cards\b/.test(d) && !/USING (COVERING )?INDEX/.test(d))
        assert.deepEqual(scans, [], `${name}: full scan of cards in\n${plan.join('\n')}`)
      }
    })
  }

// Every sortable field, both ways, on a board: the page is read from an index in its order (with the tie-break) and
// stops at its end, never a sort of every match.
for (const field of Object.keys(CARD_LIST.sort))
  for (const sort of [field, `-${field}`])
    for (const viewer of viewers) {
      test(`query plan: sort=${sort} on a board needs no sort of the matches (${viewer.role})`, async () => {
        const { rows } = await plans(viewer, { board: 'b1', sort })
        assert.ok(!rows.some((d) => d.includes('TEMP B-TREE')), `sort=${sort}: ${rows.join('\n')}`)
      })
    }

test("query plan: the default order needs no sort beside a filter either (the bench's selective list)", async () => {
  for (const viewer of viewers) {
    const { rows } = await plans(viewer, { filter: 'board="b1" && priority>=3 && tags~"bug"' })
    assert.ok(!rows.some((d) => d.includes('TEMP B-TREE')), rows.join('\n'))
  }
})

test("query plan: the count of a board's cards by priority reads only an index", async () => {
  for (const viewer of viewers) {
    for (const params of [{ board: 'b1' }, { filter: 'board="b1" && priority>=3' }, { filter: 'board="b1" && priority>=3 && tags~"bug"' }]) {
      const { count } = await plans(viewer, params)
      const cards = count.filter((d) => / cards\b/.test(d) && !/^SCAN boards|board_members/.test(d))
      assert.ok(cards.length > 0 && cards.every((d) => d.includes('USING COVERING INDEX')), `${JSON.stringify(params)}: ${count.join('\n')}`)
    }
  }
})

// Every card of the workspace, for owners and admins (who see every board): the same, from the workspace-wide
// indexes. Narrowed (a list, a state, a filter) or for a member of fewer than half of the boards, the boards are looked
// up and their matches sorted.
for (const field of Object.keys(CARD_LIST.sort))
  for (const sort of [field, `-${field}`])
    test(`query plan: sort=${sort} across every board needs no sort of the cards (admin)`, async () => {
      const { rows } = await plans(viewers[1], { sort })
      assert.ok(!rows.some((d) => d.includes('TEMP B-TREE')), `sort=${sort}: ${rows.join('\n')}`)
    })

test('query plan: narrowed across boards, an admin list and its count look the boards up (the page then sorts its matches)', async () => {
  for (const params of [{ state: 'completed' }, { trashed: 'true' }, { filter: 'due_date < "2026-02-01"' }]) {
    const { rows, count } = await plans(viewers[1], params)
    for (const plan of [rows, count])
      assert.match(plan[0], /^SEARCH cards USING (COVERING )?INDEX cards_board_\w+ \(board_id=\?/, `${JSON.stringify(params)}: ${plan.join('\n')}`)
  }
})

// A member of most boards: the page across their boards is read in its order as an admin's is (the board test on each
// row), with the same rows as looking their boards up and sorting the matches.
for (const field of Object.keys(CARD_LIST.sort))
  for (const sort of [field, `-${field}`])
    test(`query plan: sort=${sort} across the boards of a member of most boards needs no sort of the cards`, async () => {
      assert.equal(await seesMostBoards(sql.q, wideMember), true)
      const { rows } = await plans(wideMember, { sort })
      assert.ok(!rows.some((d) => d.includes('TEMP B-TREE')), `sort=${sort}: ${rows.join('\n')}`)
      // The count counts their boards' index ranges, as an admin's does, where testing each card's board is 4x slower.
      for (const viewer of [wideMember, viewers[1]]) {
        const { count } = await plans(viewer, { sort })
        assert.match(count[0], /^SEARCH cards USING COVERING INDEX cards_board_\w+ \(board_id=\?/, count.join('\n'))
      }
      const page = async (seesMost: boolean) => {
        const { rows, count } = await listOf(wideMember, { sort }, seesMost)
        return {
          ids: (await sql.q.executeQuery(rows.compile())).rows.map((r) => (r as { id: string }).id),
          total: (await sql.q.executeQuery(count.compile())).rows,
        }
      }
      const wide = await page(true)
      assert.equal(wide.ids.length, 50)
      // The page's own rows (the board tested on each) are as many as the count (the boards looked up) says.
      const { base } = cardListQueries(sql.q, wideMember, { trashed: false }, true)
      const pageRows = await sql.q.executeQuery(base.select((eb) => eb.fn.countAll<number>().as('n')).compile())
      assert.deepEqual(pageRows.rows, wide.total)
      assert.deepEqual(wide, await page(false))
    })

test('query plan: a member of few boards has them looked up (their matches are then sorted)', async () => {
  const few = { id: 'u3', role: 'member' as const }
  assert.equal(await seesMostBoards(sql.q, few), false)
  const { rows } = await plans(few, { sort: 'priority' })
  assert.match(rows.join('\n'), /SEARCH cards USING INDEX cards_board_\w+ \(board_id=\?/)
})

// Custom fields: `estimate` (a number field) on 4 boards, 20,000 cards, 9 in 10 with a value. A filter by it and a sort by
// it read the value index (card_xattr(field_id, num, card_id)) and the cards by id: no scan of cards, no sort.
sql.raw
  .transaction(() => {
    const field = sql.raw.prepare("INSERT INTO xattr_fields VALUES (?, ?, 'Estimate', 'estimate', 'number', 0, 1, NULL, NULL, '2026-01-01', '2026-01-01')")
    const value = sql.raw.prepare('INSERT INTO card_xattr (card_id, field_id, seq, num, str) VALUES (?, ?, 0, ?, NULL)')
    for (let b = 1; b <= 4; b++) field.run(`x${b}`, `b${b}`)
    for (let i = 0; i < 100_000; i++) {
      const b = (i % 20) + 1
      if (b <= 4 && Math.floor(i / 20) % 10 !== 1) value.run(`c${i}`, `x${b}`, (i * 7919) % 100)
    }
  })
  .immediate()
sql.raw.exec('ANALYZE')

const noScanOfCards = (plan: string[]) => plan.filter((d) => /^SCAN cards\b/.test(d) && !/USING (COVERING )?INDEX/.test(d))

for (const [name, params] of [
  ['custom field filter', { filter: 'xattr.estimate >= 95' }],
  ['custom field filter on a board', { filter: 'board = "b1" && xattr.estimate >= 95' }],
  ['custom field filter with the board parameter', { board: 'b1', filter: 'xattr.estimate >= 95' }],
] as [string, Params][])
  for (const viewer of viewers)
    test(`query plan: ${name} reads the value index, no scan of cards (${viewer.role})`, async () => {
      const { rows, count } = await plans(viewer, params)
      for (const plan of [rows, count]) {
        assert.deepEqual(noScanOfCards(plan), [], `${name}: full scan of cards in\n${plan.join('\n')}`)
        assert.ok(
          plan.some((d) => /\bx (EXISTS )?USING (COVERING )?INDEX card_xattr_num|\bx (EXISTS )?USING PRIMARY KEY/.test(d)),
          plan.join('\n'),
        )
      }
    })

for (const sort of ['-xattr.estimate', 'xattr.estimate'])
  for (const viewer of viewers)
    test(`query plan: sort=${sort} on a board reads the value index in order: no scan of cards, no sort (${viewer.role})`, async () => {
      const order = await XATTR_SORT.resolve(sql, 'estimate', { board: 'b1' })
      assert.ok(typeof order !== 'string', String(order))
      const { base, countBase } = cardListQueries(sql.q, viewer, { board: 'b1', trashed: false }, false)
      const q = keyedListQueries(
        base,
        CARD_LIST,
        { page: 1, per_page: 50, sort },
        { order, dir: sort.startsWith('-') ? 'desc' : 'asc', rest: undefined },
        {
          anchored: true,
          countBase,
          board: 'b1',
        },
      )
      const plan = (c: { compile(): { sql: string; parameters: readonly unknown[] } }) => {
        const compiled = c.compile()
        return (sql.raw.prepare(`EXPLAIN QUERY PLAN ${compiled.sql}`).all(...compiled.parameters) as { detail: string }[]).map((p) => p.detail)
      }
      for (const [part, p] of [
        ['valued', plan(q.valued(0, 50))],
        ['unvalued', plan(q.unvalued(0, 50))],
        ['valued count', plan(q.valuedCount)],
      ] as const) {
        assert.deepEqual(noScanOfCards(p), [], `${part}: full scan of cards in\n${p.join('\n')}`)
        if (part !== 'valued count') assert.ok(!p.some((d) => d.includes('TEMP B-TREE')), `${part}: ${p.join('\n')}`)
      }
      assert.match(plan(q.valued(0, 50)).join('\n'), /^SEARCH xs USING COVERING INDEX card_xattr_num \(field_id=\?/)
      // The answers: values in order, ties by card id, then the cards without one.
      const valued = (await sql.q.executeQuery(q.valued(0, 5000).compile())).rows as { id: string }[]
      const unvalued = (await sql.q.executeQuery(q.unvalued(0, 5000).compile())).rows as { id: string }[]
      const n = async (c: typeof q.count) => Number(((await sql.q.executeQuery(c.compile())).rows[0] as { n: number }).n)
      assert.equal(valued.length, await n(q.valuedCount))
      assert.equal(valued.length + unvalued.length, await n(q.count))
      if (viewer.role === 'admin') assert.deepEqual([valued.length, unvalued.length], [3500, 500])
      assert.ok(!valued.some((v) => unvalued.some((u) => u.id === v.id)))
      const num = (id: string) => (Number(id.slice(1)) * 7919) % 100
      const sorted = [...valued].sort((a, b) => (num(a.id) - num(b.id) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)) * (sort.startsWith('-') ? -1 : 1))
      assert.deepEqual(
        valued.map((r) => r.id),
        sorted.map((r) => r.id),
      )
    })

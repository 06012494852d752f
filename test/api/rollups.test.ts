// Rollups of custom fields through HTTP, on one fixture: over a card's sub-tasks and over the other cards of its
// milestone, every function against hand-computed values; no related cards gives no value (count: 0); trashed cards are
// left out; a page of cards reads them in a fixed number of queries (one per kind).
import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import { seededFixture } from '../helpers/app.js'

const FNS = ['sum', 'avg', 'min', 'max', 'count'] as const

const fixture = () =>
  seededFixture(async (s) => {
    const { t, tokens } = s
    const post = async (url: string, body: unknown) => {
      const r = await t.req('POST', url, { token: tokens.member.write, body })
      assert.equal(r.status, 201, `${url}: ${r.text}`)
      return r.body
    }
    await post('/v1/xattr', { board: s.board.id, name: 'Estimate', type: 'number' })
    for (const fn of FNS) {
      await post('/v1/xattr', { board: s.board.id, name: `Sub ${fn}`, type: 'rollup', rollup: { field: 'estimate', over: 'subtasks', fn } })
      await post('/v1/xattr', { board: s.board.id, name: `Ms ${fn}`, type: 'rollup', rollup: { field: 'estimate', over: 'milestone', fn } })
    }
    const milestone = (await post('/v1/milestones', { board: s.board.id, name: 'Beta' })).milestone
    const card = async (title: string, extra: Record<string, unknown> = {}) => (await post('/v1/cards', { board: s.board.id, title, ...extra })).card
    const parent = await card('Parent', { xattr: { estimate: 100 }, milestone: milestone.id })
    const lone = await card('Lone', { xattr: { estimate: 7 } })
    const a = await card('A', { parent: parent.id, xattr: { estimate: 2 }, milestone: milestone.id })
    const b = await card('B', { parent: parent.id, xattr: { estimate: 5 } })
    const c = await card('C', { parent: parent.id, xattr: { estimate: 8 }, milestone: milestone.id })
    await card('D without a value', { parent: parent.id })
    const gone = await card('E trashed', { parent: parent.id, xattr: { estimate: 1000 }, milestone: milestone.id })
    const r = await t.req('DELETE', `/v1/cards/${gone.id}`, { token: tokens.member.write })
    assert.equal(r.status, 204, r.text)
    return { parent, lone, a, b, c }
  })

const ready = fixture()
after(async () => (await ready).t.close())

const xattrOf = async (id: string) => {
  const { t, tokens } = await ready
  const r = await t.req('GET', `/v1/cards/${id}`, { token: tokens.member.read })
  assert.equal(r.status, 200, r.text)
  return r.body.card.xattr as Record<string, unknown>
}

// Hand-computed: Parent's sub-tasks A, B, C, D carry 2, 5, 8 and none (E is trashed); the milestone Beta holds Parent
// (100), A (2) and C (8), E trashed.
const SCENARIOS: { name: string; card: 'parent' | 'lone' | 'a' | 'c'; expect: Record<string, number | undefined> }[] = [
  {
    name: 'a parent rolls up its sub-tasks; its milestone the others of Beta',
    card: 'parent',
    expect: { sub_sum: 15, sub_avg: 5, sub_min: 2, sub_max: 8, sub_count: 3, ms_sum: 10, ms_avg: 5, ms_min: 2, ms_max: 8, ms_count: 2 },
  },
  {
    name: 'a card in the milestone rolls up the other cards of it, not itself',
    card: 'a',
    expect: {
      sub_sum: undefined,
      sub_avg: undefined,
      sub_min: undefined,
      sub_max: undefined,
      sub_count: 0,
      ms_sum: 108,
      ms_avg: 54,
      ms_min: 8,
      ms_max: 100,
      ms_count: 2,
    },
  },
  {
    name: 'a second card of the milestone',
    card: 'c',
    expect: { ms_sum: 102, ms_avg: 51, ms_min: 2, ms_max: 100, ms_count: 2 },
  },
  {
    name: 'no related cards: no value, and count 0',
    card: 'lone',
    expect: { sub_sum: undefined, sub_avg: undefined, sub_min: undefined, sub_max: undefined, sub_count: 0, ms_sum: undefined, ms_min: undefined, ms_count: 0 },
  },
]

for (const sc of SCENARIOS)
  test(`rollups: ${sc.name}`, async () => {
    const c = await ready
    const xattr = await xattrOf(c[sc.card].id)
    for (const [key, value] of Object.entries(sc.expect)) assert.equal(xattr[key], value, `${key} of ${sc.card}: ${JSON.stringify(xattr)}`)
  })

test('rollups: a page of cards shows the same values as each card alone', async () => {
  const { t, tokens, board, parent, a, lone } = await ready
  const r = await t.req('GET', `/v1/cards?board=${board.id}&per_page=100`, { token: tokens.member.read })
  assert.equal(r.status, 200, r.text)
  const byId = new Map((r.body.items as { id: string; xattr: Record<string, unknown> }[]).map((c) => [c.id, c.xattr]))
  for (const card of [parent, a, lone]) assert.deepEqual(byId.get(card.id), await xattrOf(card.id))
})

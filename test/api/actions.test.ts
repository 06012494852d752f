// Bulk routes: per-card results, one event per card, and the workspace export.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { seededApp } from '../helpers/app.js'
import { dbAll, dbGet } from '../helpers/db.js'

async function fixture() {
  const c = await seededApp()
  const tok = c.tokens.member.write
  const ids: string[] = []
  for (const title of ['a', 'b', 'c']) ids.push((await c.t.req('POST', '/v1/cards', { token: tok, body: { board: c.board.id, title } })).body.card.id)
  const hidden = (await c.t.req('POST', '/v1/boards', { token: c.tokens.outsider.write, body: { name: 'H' } })).body.board
  const foreign = (await c.t.req('POST', '/v1/cards', { token: c.tokens.outsider.write, body: { board: hidden.id, title: 'x' } })).body.card.id
  return { c, tok, ids, foreign }
}

const get = async (c: Awaited<ReturnType<typeof seededApp>>, id: string) => (await c.t.req('GET', `/v1/cards/${id}`, { token: c.tokens.member.read })).body.card

test('bulk complete: cards the token cannot see fail one by one, the rest change, one event per card', async () => {
  const { c, tok, ids, foreign } = await fixture()
  try {
    const completedEvents = async () => Number((await dbGet<{ n: number }>(c.t.deps.db, "SELECT count(*) AS n FROM events WHERE name = 'card.completed'"))!.n)
    const before = await completedEvents()
    const r = await c.t.req('POST', '/v1/actions/bulk-complete-cards', { token: tok, body: { cards: [...ids, foreign, 'nope'], completed: true } })
    assert.equal(r.status, 200)
    assert.equal(r.body.updated, 3)
    assert.deepEqual(
      r.body.failed.map((f: any) => [f.id, f.error.code]),
      [
        [foreign, 'not_found'],
        ['nope', 'not_found'],
      ],
    )
    for (const id of ids) assert.equal((await get(c, id)).completed, true)
    const after = await completedEvents()
    assert.equal(after - before, 3)
  } finally {
    await c.t.close()
  }
})

test('bulk move, archive, priority, members and tags', async () => {
  const { c, tok, ids } = await fixture()
  try {
    assert.equal((await c.t.req('POST', '/v1/actions/bulk-move-cards', { token: tok, body: { cards: ids, list: c.lists[1].id } })).body.updated, 3)
    assert.equal((await get(c, ids[0])).list, c.lists[1].id)
    assert.equal((await c.t.req('POST', '/v1/actions/bulk-archive-cards', { token: tok, body: { cards: [ids[0]], archived: true } })).body.updated, 1)
    assert.equal((await get(c, ids[0])).archived, true)
    await c.t.req('POST', '/v1/actions/bulk-set-priority', { token: tok, body: { cards: ids, priority: 3 } })
    assert.equal((await get(c, ids[2])).priority, 3)
    await c.t.req('POST', '/v1/actions/bulk-set-priority', { token: tok, body: { cards: ids, priority: null } })
    assert.equal((await get(c, ids[2])).priority, 0)
    await c.t.req('POST', '/v1/actions/bulk-manage-members', { token: tok, body: { cards: ids, add: [c.member.id, c.admin.id] } })
    await c.t.req('POST', '/v1/actions/bulk-manage-members', { token: tok, body: { cards: [ids[0]], remove: [c.admin.id] } })
    assert.deepEqual((await get(c, ids[0])).assignees, [c.member.id])
    assert.deepEqual((await get(c, ids[1])).assignees.sort(), [c.member.id, c.admin.id].sort())
    const tag = (await c.t.req('POST', '/v1/tags', { token: tok, body: { board: c.board.id, name: 'bug' } })).body.tag.id
    const tagged = await c.t.req('POST', '/v1/actions/bulk-manage-tags', { token: tok, body: { cards: ids, add: [tag, 'nope'] } })
    assert.equal(tagged.body.updated, 0, 'an unknown tag fails each card')
    assert.equal(tagged.body.failed[0].error.code, 'validation_failed')
    await c.t.req('POST', '/v1/actions/bulk-manage-tags', { token: tok, body: { cards: ids, add: [tag] } })
    assert.deepEqual((await get(c, ids[1])).tags, [tag])
    const upd = await c.t.req('POST', '/v1/actions/bulk-update-cards', { token: tok, body: { cards: ids, set: { due_date: '2027-01-01', title: 'Same' } } })
    assert.equal(upd.body.updated, 3)
    assert.equal((await get(c, ids[1])).title, 'Same')
  } finally {
    await c.t.close()
  }
})

test('bulk update of the cards’ own fields (set-based) announces what single updates would, and refuses card by card', async () => {
  const { c, tok, ids, foreign } = await fixture()
  try {
    const single = (await c.t.req('POST', '/v1/cards', { token: tok, body: { board: c.board.id, title: 'd' } })).body.card.id
    const since = Number((await dbGet<{ n: number }>(c.t.deps.db, 'SELECT COALESCE(MAX(seq), 0) AS n FROM events'))!.n)
    const set = { title: 'b', priority: 2, due_date: '2027-03-01' }
    const r = await c.t.req('POST', '/v1/actions/bulk-update-cards', { token: tok, body: { cards: [...ids, foreign, ids[0], 'nope'], set } })
    assert.equal(r.status, 200, r.text)
    assert.equal(r.body.updated, 3, 'a repeated id counts once')
    assert.deepEqual(
      r.body.failed.map((f: any) => [f.id, f.error.code]),
      [
        [foreign, 'not_found'],
        ['nope', 'not_found'],
      ],
    )
    assert.equal((await c.t.req('PATCH', `/v1/cards/${single}`, { token: tok, body: set })).status, 200)
    const events = (await dbAll<{ name: string; data: string }>(c.t.deps.db, 'SELECT name, data FROM events WHERE seq > ? ORDER BY seq', since)).map((e) => ({
      name: e.name,
      data: JSON.parse(e.data),
    }))
    assert.deepEqual(
      events.map((e) => [e.name, e.data.id, e.data.changes]),
      [
        ['card.updated', ids[0], ['title', 'priority', 'due_date']],
        ['card.updated', ids[1], ['priority', 'due_date']], // its title was b already
        ['card.updated', ids[2], ['title', 'priority', 'due_date']],
        ['card.updated', single, ['title', 'priority', 'due_date']],
      ],
    )
    // The same payload as the single update's, apart from what tells the cards apart.
    const own = (d: any) => ({ ...d, id: undefined, key: undefined, url: undefined, position: undefined, created: undefined })
    assert.deepEqual(own(events[0].data), own(events[3].data))
    for (const id of ids) assert.deepEqual(((await get(c, id)) as any).title, 'b')
    const again = await c.t.req('POST', '/v1/actions/bulk-update-cards', { token: tok, body: { cards: ids, set } })
    assert.equal(again.body.updated, 3)
    assert.equal(
      Number((await dbGet<{ n: number }>(c.t.deps.db, 'SELECT COUNT(*) AS n FROM events WHERE seq > ?', since))!.n),
      4,
      'nothing changed, nothing announced',
    )
  } finally {
    await c.t.close()
  }
})

test('bulk move and bulk complete (set-based) announce what single moves and completions would, and refuse card by card', async () => {
  const { c, tok, ids, foreign } = await fixture()
  try {
    const singles: string[] = []
    for (const title of ['d', 'e']) singles.push((await c.t.req('POST', '/v1/cards', { token: tok, body: { board: c.board.id, title } })).body.card.id)
    const done = (await c.t.req('POST', '/v1/lists', { token: tok, body: { board: c.board.id, name: 'Shipped', category: 'completed' } })).body.list.id
    const since = async () => Number((await dbGet<{ n: number }>(c.t.deps.db, 'SELECT COALESCE(MAX(seq), 0) AS n FROM events'))!.n)
    /** Each card's events since `from`, as [name, changes] in order. */
    const eventsOf = async (from: number) => {
      const rows = await dbAll<{ name: string; data: string }>(c.t.deps.db, 'SELECT name, data FROM events WHERE seq > ? ORDER BY seq', from)
      const by = new Map<string, unknown[][]>()
      for (const r of rows) {
        const d = JSON.parse(r.data)
        by.set(d.id, [...(by.get(d.id) ?? []), [r.name, d.changes ?? d.to_list?.id ?? null]])
      }
      return by
    }
    const failedOf = (r: any) => r.body.failed.map((f: any) => [f.id, f.error.code])

    // Into a completed list: the cards move to its end, in the order given, and are completed.
    let from = await since()
    const moved = await c.t.req('POST', '/v1/actions/bulk-move-cards', { token: tok, body: { cards: [ids[1], foreign, ids[0], 'nope'], list: done } })
    assert.equal(moved.status, 200, moved.text)
    assert.equal(moved.body.updated, 2)
    assert.deepEqual(failedOf(moved), [
      [foreign, 'not_found'],
      ['nope', 'not_found'],
    ])
    assert.equal((await c.t.req('POST', `/v1/cards/${singles[0]}/move`, { token: tok, body: { list: done } })).status, 200)
    let events = await eventsOf(from)
    // The new list has no status, so the cards' status changes too.
    assert.deepEqual(events.get(singles[0]), [
      ['card.updated', ['list', 'position', 'completed', 'status']],
      ['card.moved', done],
      ['card.completed', null],
    ])
    for (const id of [ids[1], ids[0]]) assert.deepEqual(events.get(id), events.get(singles[0]), id)
    const inDone = (await c.t.req('GET', `/v1/cards?list=${done}&sort=position`, { token: tok })).body.items.map((x: any) => x.id)
    assert.deepEqual(inDone, [ids[1], ids[0], singles[0]])
    for (const id of [ids[0], ids[1]]) assert.equal((await get(c, id)).completed, true)

    // Re-opened: out of the completed list, to the board's first open list, as a single PATCH does it.
    from = await since()
    const reopened = await c.t.req('POST', '/v1/actions/bulk-complete-cards', { token: tok, body: { cards: [ids[0], ids[1], ids[2]], completed: false } })
    assert.equal(reopened.body.updated, 3, 'a card already open counts, unchanged')
    assert.equal((await c.t.req('PATCH', `/v1/cards/${singles[0]}`, { token: tok, body: { completed: false } })).status, 200)
    events = await eventsOf(from)
    assert.deepEqual(events.get(singles[0]), [
      ['card.updated', ['list', 'position', 'completed', 'status']],
      ['card.moved', c.lists[0].id],
      ['card.reopened', null],
    ])
    for (const id of [ids[0], ids[1]]) assert.deepEqual(events.get(id), events.get(singles[0]), id)
    assert.equal(events.get(ids[2]), undefined, 'nothing changed, nothing announced')

    // Completing an open card moves it to the board's first completed list, as a single completion does.
    from = await since()
    assert.equal((await c.t.req('POST', '/v1/actions/bulk-complete-cards', { token: tok, body: { cards: [ids[2]], completed: true } })).body.updated, 1)
    assert.equal((await c.t.req('PATCH', `/v1/cards/${singles[1]}`, { token: tok, body: { completed: true } })).status, 200)
    events = await eventsOf(from)
    assert.equal((events.get(ids[2]) ?? []).length, 3)
    assert.deepEqual(events.get(ids[2]), events.get(singles[1]))
  } finally {
    await c.t.close()
  }
})

test('bulk limits and permissions', async () => {
  const { c, ids } = await fixture()
  try {
    assert.equal((await c.t.req('POST', '/v1/actions/bulk-complete-cards', { token: c.tokens.member.read, body: { cards: ids, completed: true } })).status, 403)
    assert.equal(
      (
        await c.t.req('POST', '/v1/actions/bulk-complete-cards', {
          token: c.tokens.member.write,
          body: { cards: Array.from({ length: 501 }, (_, i) => `c${i}`), completed: true },
        })
      ).status,
      422,
    )
    assert.equal((await c.t.req('POST', '/v1/actions/bulk-complete-cards', { token: c.tokens.member.write, body: { cards: [], completed: true } })).status, 422)
  } finally {
    await c.t.close()
  }
})

test('export-workspace: owners and admins with a Full Access token; no token hashes', async () => {
  const { c } = await fixture()
  try {
    assert.equal((await c.t.req('POST', '/v1/actions/export-workspace', { token: c.tokens.admin.write })).status, 403)
    const r = await c.t.req('POST', '/v1/actions/export-workspace', { token: c.tokens.admin.full })
    assert.equal(r.status, 200)
    assert.equal(r.body.cards.length, 4)
    assert.equal(r.body.boards.length, 2)
    assert.ok(!('tokens' in r.body))
    assert.ok(!r.text.includes('"hash"'))
  } finally {
    await c.t.close()
  }
})

test('bulk members, tags and trash (set-based) announce and notify what single changes would, and refuse card by card', async () => {
  const { c, tok, ids, foreign } = await fixture()
  try {
    const single = (await c.t.req('POST', '/v1/cards', { token: tok, body: { board: c.board.id, title: 'd' } })).body.card.id
    const since = async () => Number((await dbGet<{ n: number }>(c.t.deps.db, 'SELECT COALESCE(MAX(seq), 0) AS n FROM events'))!.n)
    const eventsSince = async (from: number) =>
      (await dbAll<{ name: string; data: string }>(c.t.deps.db, 'SELECT name, data FROM events WHERE seq > ? ORDER BY seq', from)).map((e) => {
        const d = JSON.parse(e.data)
        return [e.name, d.id, d.changes ?? d.user?.id ?? d.permanent ?? null]
      })
    const inbox = async () => Number((await dbGet<{ n: number }>(c.t.deps.db, 'SELECT COUNT(*) AS n FROM inbox_items'))!.n)
    const people = [c.admin.id, c.owner.id].sort()

    // Members: the bulk route and a PATCH of the single card give the same events, in the same order.
    let from = await since()
    const inboxBefore = await inbox()
    const added = await c.t.req('POST', '/v1/actions/bulk-manage-members', {
      token: tok,
      body: { cards: [ids[0], foreign, ids[1]], add: [c.owner.id, c.admin.id] },
    })
    assert.equal(added.status, 200, added.text)
    assert.equal(added.body.updated, 2)
    assert.deepEqual(
      added.body.failed.map((f: any) => [f.id, f.error.code]),
      [[foreign, 'not_found']],
    )
    assert.equal((await c.t.req('PATCH', `/v1/cards/${single}`, { token: tok, body: { assignees: [c.owner.id, c.admin.id] } })).status, 200)
    const assigned = (id: string) => [['card.updated', id, ['assignees']], ...people.map((u) => ['card.assigned', id, u])]
    assert.deepEqual(await eventsSince(from), [...assigned(ids[0]), ...assigned(ids[1]), ...assigned(single)])
    assert.equal((await inbox()) - inboxBefore, 6, 'each person added told of each card')
    assert.deepEqual((await get(c, ids[1])).assignees, people)

    from = await since()
    const removed = await c.t.req('POST', '/v1/actions/bulk-manage-members', { token: tok, body: { cards: [ids[0], ids[2]], remove: [c.admin.id] } })
    assert.equal(removed.body.updated, 2, 'a card the change leaves as it was counts')
    assert.deepEqual(await eventsSince(from), [
      ['card.updated', ids[0], ['assignees']],
      ['card.unassigned', ids[0], c.admin.id],
    ])
    const bad = await c.t.req('POST', '/v1/actions/bulk-manage-members', { token: tok, body: { cards: [ids[0]], add: ['nope'] } })
    assert.deepEqual(
      bad.body.failed.map((f: any) => [f.id, f.error.code]),
      [[ids[0], 'validation_failed']],
    )

    // Tags: a tag of another board fails the cards of this one.
    const tag = (await c.t.req('POST', '/v1/tags', { token: tok, body: { board: c.board.id, name: 'bug' } })).body.tag.id
    const other = (await c.t.req('POST', '/v1/boards', { token: tok, body: { name: 'Other' } })).body.board.id
    const otherCard = (await c.t.req('POST', '/v1/cards', { token: tok, body: { board: other, title: 'o' } })).body.card.id
    from = await since()
    const tagged = await c.t.req('POST', '/v1/actions/bulk-manage-tags', { token: tok, body: { cards: [ids[0], otherCard], add: [tag] } })
    assert.equal(tagged.body.updated, 1)
    assert.deepEqual(
      tagged.body.failed.map((f: any) => [f.id, f.error.code]),
      [[otherCard, 'validation_failed']],
    )
    assert.deepEqual(await eventsSince(from), [['card.updated', ids[0], ['tags']]])
    assert.deepEqual((await get(c, ids[0])).tags, [tag])

    // Trash: card.deleted (not for good) before card.updated, as a PATCH writes them; the idempotency key is freed.
    const keyed = (await c.t.req('POST', '/v1/cards', { token: tok, body: { board: c.board.id, title: 'k', idempotency_key: 'k1' } })).body.card.id
    from = await since()
    const trashed = await c.t.req('POST', '/v1/actions/bulk-update-cards', { token: tok, body: { cards: [ids[1], keyed], set: { trashed: true } } })
    assert.equal(trashed.body.updated, 2, trashed.text)
    assert.equal((await c.t.req('PATCH', `/v1/cards/${single}`, { token: tok, body: { trashed: true } })).status, 200)
    const gone = (id: string) => [
      ['card.deleted', id, false],
      ['card.updated', id, ['trashed']],
    ]
    assert.deepEqual(await eventsSince(from), [...gone(ids[1]), ...gone(keyed), ...gone(single)])
    const again = await c.t.req('POST', '/v1/cards', { token: tok, body: { board: c.board.id, title: 'k', idempotency_key: 'k1' } })
    assert.equal(again.status, 201, 'the trashed card no longer holds its idempotency key')
  } finally {
    await c.t.close()
  }
})

test('bulk update of milestone, parent, custom fields and status on 200 cards (set-based) announces what single PATCHes would, card by card', async () => {
  const c = await seededApp()
  try {
    const tok = c.tokens.member.write
    const req = (method: string, url: string, body?: unknown) => c.t.req(method, url, { token: tok, body })
    const milestone = (await req('POST', '/v1/milestones', { board: c.board.id, name: 'Beta' })).body.milestone.id
    for (const [name, type] of [
      ['points', 'number'],
      ['flag', 'boolean'],
    ]) {
      const made = await req('POST', '/v1/xattr', { board: c.board.id, name, key: name, type })
      assert.equal(made.status, 201, made.text)
    }
    const lists = (await req('GET', `/v1/lists?board=${c.board.id}`)).body.items as { id: string; category: string; status: string | null }[]
    const open = lists.find((l) => l.category !== 'completed')!
    const done = lists.find((l) => l.category === 'completed' && l.status)!
    const card = async (title: string) => (await req('POST', '/v1/cards', { board: c.board.id, title, list: open.id })).body.card
    const [parent, oldParent, ancestor] = [await card('P'), await card('O'), await card('A')]
    assert.equal((await req('PATCH', `/v1/cards/${parent.id}`, { parent: ancestor.id })).status, 200)
    const hidden = (await c.t.req('POST', '/v1/boards', { token: c.tokens.outsider.write, body: { name: 'H' } })).body.board
    const foreign = (await c.t.req('POST', '/v1/cards', { token: c.tokens.outsider.write, body: { board: hidden.id, title: 'x' } })).body.card.id

    // 200 cards written straight into the database (the API would take seconds), and 5 twins changed by PATCH: card i
    // starts as twin i % 5 does (its parent O, its points 3, on the milestone already, in the completed list, or none).
    const N = 200
    const bulk = Array.from({ length: N }, (_, i) => `bulkcard${String(i).padStart(4, '0')}`)
    const twins = Array.from({ length: 5 }, (_, i) => `twincard${String(i).padStart(4, '0')}`)
    const shape = (i: number) => i % 5
    await c.t.deps.db.tx(async ({ q }) => {
      const board = await q.selectFrom('boards').select(['next_key', 'key_prefix']).where('id', '=', c.board.id).executeTakeFirstOrThrow()
      const at = '2026-11-01T00:00:00.000Z'
      const rows = [...bulk, ...twins].map((id, n) => {
        const i = n < N ? n : n - N
        const num = Number(board.next_key) + n
        return {
          id,
          board_id: c.board.id,
          list_id: shape(i) === 3 ? done.id : open.id,
          key_num: num,
          key: `${board.key_prefix}-${num}`,
          title: 'card',
          description: 'the same description',
          position: 1000 + n,
          priority: 1,
          completed: shape(i) === 3 ? 1 : 0,
          completed_at: shape(i) === 3 ? at : null,
          archived: 0,
          trashed: 0,
          created_by: c.member.id,
          created_at: at,
          updated_at: at,
          milestone_id: shape(i) === 2 ? milestone : null,
        }
      })
      await q.insertInto('cards').values(rows).execute()
      await q
        .updateTable('boards')
        .set({ next_key: Number(board.next_key) + rows.length })
        .where('id', '=', c.board.id)
        .execute()
    })
    const ofShape = (s: number) => [...bulk, ...twins].filter((_, n) => shape(n < N ? n : n - N) === s)
    for (const [s, set] of [
      [0, { parent: oldParent.id }],
      [1, { xattr: { points: 3 } }],
    ] as const) {
      const r = await req('POST', '/v1/actions/bulk-update-cards', { cards: ofShape(s), set })
      assert.equal(r.body.updated, ofShape(s).length, r.text)
    }

    const since = async () => Number((await dbGet<{ n: number }>(c.t.deps.db, 'SELECT COALESCE(MAX(seq), 0) AS n FROM events'))!.n)
    const keys = new Map((await dbAll<{ id: string; key: string }>(c.t.deps.db, "SELECT id, key FROM cards WHERE title = 'card'")).map((r) => [r.id, r.key]))
    /** Each card's events since `from`, with what tells cards and links apart (and times and positions) left out. */
    const eventsSince = async (from: number) => {
      const by = new Map<string, unknown[]>()
      const order: string[] = []
      for (const e of await dbAll<{ name: string; data: string }>(c.t.deps.db, 'SELECT name, data FROM events WHERE seq > ? ORDER BY seq', from)) {
        const raw = JSON.parse(e.data)
        const id: string = e.name.startsWith('entity_link.') ? raw.target.id : raw.id
        const d = JSON.parse(e.data.replaceAll(id, 'CARD').replaceAll(`"${keys.get(id)}"`, '"KEY"'))
        for (const k of ['position', 'updated', 'completed_at']) delete d[k]
        if (e.name.startsWith('entity_link.')) delete d.id
        if (!by.has(id)) order.push(id)
        by.set(id, [...(by.get(id) ?? []), [e.name, d]])
      }
      return { by, order }
    }
    const failedOf = (r: any) => r.body.failed.map((f: any) => [f.id, f.error.code, f.error.message])

    for (const [why, set, first] of [
      [
        'milestone, parent, custom fields and a title',
        { milestone, parent: parent.id, xattr: { points: 3, flag: true }, title: 'card two' },
        ['card.updated', 'entity_link.deleted', 'entity_link.created'],
      ],
      ['status: the completed one', { status: done.status }, ['card.updated', 'card.moved', 'card.completed']],
      ['all taken off again', { milestone: null, parent: null, xattr: { points: null } }, ['card.updated', 'entity_link.deleted']],
    ] as const) {
      let from = await since()
      const r = await req('POST', '/v1/actions/bulk-update-cards', { cards: [...bulk, foreign, parent.id, ancestor.id], set })
      assert.equal(r.status, 200, r.text)
      const bulkEvents = await eventsSince(from)
      from = await since()
      const singles = []
      for (const id of [...twins, foreign, parent.id, ancestor.id]) singles.push(await req('PATCH', `/v1/cards/${id}`, set))
      const twinEvents = await eventsSince(from)
      // The refusals are the single changes' own.
      const refusedAlone = singles
        .slice(5)
        .flatMap((s, i) => (s.status === 200 ? [] : [[[foreign, parent.id, ancestor.id][i], s.body.error.code, s.body.error.message]]))
      assert.deepEqual(failedOf(r), refusedAlone, why)
      assert.equal(r.body.updated, N + 3 - refusedAlone.length, why)
      for (const [i, id] of bulk.entries()) assert.deepEqual(bulkEvents.by.get(id), twinEvents.by.get(twins[shape(i)]), `${why}: card ${i}`)
      assert.deepEqual(
        twinEvents.by.get(twins[0])?.map((e) => (e as [string])[0]),
        first,
        why,
      )
      // In the order of the ids, each card's events together.
      const changedIds = bulk.filter((id) => bulkEvents.by.has(id))
      assert.deepEqual(
        bulkEvents.order.filter((id) => id.startsWith('bulkcard')),
        changedIds,
        why,
      )
    }
    const inDone = (await req('GET', `/v1/cards?list=${done.id}&sort=position&per_page=500`)).body.items
      .map((x: any) => x.id)
      .filter((id: string) => id.startsWith('bulkcard'))
    assert.deepEqual(
      inDone,
      [...bulk.filter((_, i) => shape(i) === 3), ...bulk.filter((_, i) => shape(i) !== 3)],
      'moved to the end of the list in the order given, after those already there',
    )
  } finally {
    await c.t.close()
  }
})

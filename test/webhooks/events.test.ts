// Every change with an event emits it in its own transaction, with data exactly as the catalog documents; rollbacks emit nothing.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { eventCatalog } from '../../src/events/catalog.js'
import '../../src/resources/index.js'

const EVENT_CATALOG = eventCatalog()
import { seededApp } from '../helpers/app.js'
import { dbAll, dbGet } from '../helpers/db.js'

type C = Awaited<ReturnType<typeof seededApp>>

const events = (c: C) => dbAll<{ name: string; board_id: string | null; data: string }>(c.t.deps.db, 'SELECT name, board_id, data FROM events ORDER BY seq')
const outboxCount = async (c: C) => Number((await dbGet<{ n: number }>(c.t.deps.db, 'SELECT count(*) AS n FROM outbox'))!.n)
const documented = (event: string) =>
  EVENT_CATALOG.find((e) => e.event === event)!
    .fields.map((f) => f.name)
    .sort()

async function ok(c: C, method: string, path: string, body?: unknown, token = c.tokens.owner.write) {
  const r = await c.t.req(method, path, { token, body })
  assert.ok(r.status < 300, `${method} ${path}: ${r.status} ${r.text}`)
  return r.body
}

test('every supported change emits its event, with data matching the catalog field for field', async () => {
  const c = await seededApp({ allowPrivateTargets: 'true' })
  try {
    await ok(c, 'POST', '/v1/webhooks', { name: 'all', url: 'http://127.0.0.1:9/x', events: ['*'], boards: [] })
    const seeded = (await events(c)).length // the fixture's member_added events, from before the subscription existed
    const board = c.board.id
    const [todo, doing] = c.lists
    const card = (await ok(c, 'POST', '/v1/cards', { board, title: 'One', assignees: [c.member.id] })).card
    await ok(c, 'PATCH', `/v1/cards/${card.id}`, { title: 'One, renamed', assignees: [c.admin.id] })
    const comment = (await ok(c, 'POST', '/v1/comments', { card: card.id, body: 'Looks good' })).comment
    await ok(c, 'DELETE', `/v1/comments/${comment.id}`)
    const checklist = (await ok(c, 'POST', '/v1/checklists', { card: card.id, title: 'Before sending', items: ['Figures'] })).checklist
    await ok(c, 'PATCH', `/v1/checklists/${checklist.id}/items/${checklist.items[0].id}`, { completed: true })
    await ok(c, 'PATCH', `/v1/checklists/${checklist.id}/items/${checklist.items[0].id}`, { completed: false })
    await ok(c, 'POST', '/v1/time-entries/timer/start', { card: card.id, note: 'drafting' })
    await ok(c, 'POST', '/v1/time-entries/timer/stop')
    await ok(c, 'POST', `/v1/cards/${card.id}/move`, { list: doing.id })
    await ok(c, 'POST', `/v1/cards/${card.id}/complete`, { completed: true })
    await ok(c, 'POST', `/v1/cards/${card.id}/complete`, { completed: false })
    await ok(c, 'DELETE', `/v1/cards/${card.id}`)
    await ok(c, 'DELETE', `/v1/cards/${card.id}?permanent=true`)
    const list = (await ok(c, 'POST', '/v1/lists', { board, name: 'Review' })).list
    await ok(c, 'DELETE', `/v1/lists/${list.id}`)
    const tag = (await ok(c, 'POST', '/v1/tags', { board, name: 'bug', color: '#ff0000' })).tag
    await ok(c, 'DELETE', `/v1/tags/${tag.id}`)
    await ok(c, 'POST', `/v1/boards/${board}/members`, { user: c.outsider.id })
    await ok(c, 'DELETE', `/v1/boards/${board}/members/${c.outsider.id}`)

    const got = await events(c)
    const names = got.map((e) => e.name)
    for (const name of [
      'card.created',
      'card.assigned',
      'card.updated',
      'card.unassigned',
      'card.moved',
      'comment.added',
      'comment.deleted',
      'checklist.item_completed',
      'checklist.item_uncompleted',
      'timer.started',
      'timer.stopped',
      'card.completed',
      'card.reopened',
      'card.deleted',
      'list.created',
      'list.deleted',
      'tag.created',
      'tag.deleted',
      'board.member_added',
      'board.member_removed',
    ]) {
      assert.ok(names.includes(name), `${name} emitted; got ${names.join(', ')}`)
    }
    for (const e of got) {
      // The audit log's entries (the subscription made, members added and removed) are workspace-wide; the board an
      // entry concerns is in its data.
      if (e.name === 'audit.entry') assert.ok(e.board_id === null && [null, board].includes(JSON.parse(e.data).board), e.data)
      else assert.equal(e.board_id, board, `${e.name} carries its board`)
      assert.deepEqual(Object.keys(JSON.parse(e.data)).sort(), documented(e.name), `${e.name} data matches the catalog`)
    }
    assert.equal(names.filter((n) => n === 'card.deleted').length, 2, 'trash and permanent delete')
    const data = (name: string) => JSON.parse(got.find((e) => e.name === name)!.data)
    assert.deepEqual(data('card.assigned').user, { id: c.member.id, name: data('card.assigned').assignees[0].name })
    assert.deepEqual(data('card.moved').from_list, { id: todo.id, name: todo.name })
    assert.deepEqual(data('card.moved').to_list, { id: doing.id, name: doing.name })
    assert.equal(data('card.updated').actor.id, c.owner.id)
    assert.deepEqual(Object.keys(data('board.member_added').user).sort(), ['id', 'kind', 'name'], 'no email leaves the workspace')
    // ...and one for the audit entry of the subscription's own creation, written after it in the same transaction.
    assert.equal(await outboxCount(c), got.length - seeded + 1, 'one outbox row per later event for the one matching subscription')
  } finally {
    await c.t.close()
  }
})

test('a rolled-back change emits nothing: no event, no outbox row', async () => {
  const c = await seededApp({ allowPrivateTargets: 'true' })
  try {
    await ok(c, 'POST', '/v1/webhooks', { name: 'all', url: 'http://127.0.0.1:9/x', events: ['*'], boards: [] })
    await ok(c, 'POST', '/v1/tags', { board: c.board.id, name: 'dup' })
    await ok(c, 'POST', '/v1/cards', { board: c.board.id, title: 'keeps the list busy', list: c.lists[0].id })
    const before = { events: (await events(c)).length, outbox: await outboxCount(c) }
    // Each of these fails after the service has started its transaction (and, for the card, after choosing its key).
    const bad = await c.t.req('POST', '/v1/cards', {
      token: c.tokens.owner.write,
      body: { board: c.board.id, title: 'x', tags: ['no-such-tag'], assignees: [c.member.id] },
    })
    assert.equal(bad.status, 422)
    const clash = await c.t.req('POST', '/v1/tags', { token: c.tokens.owner.write, body: { board: c.board.id, name: 'DUP' } })
    assert.equal(clash.status, 409)
    const busy = await c.t.req('DELETE', `/v1/lists/${c.lists[0].id}`, { token: c.tokens.owner.write })
    assert.equal(busy.status, 409)
    assert.deepEqual({ events: (await events(c)).length, outbox: await outboxCount(c) }, before)
    await ok(c, 'DELETE', `/v1/lists/${c.lists[1].id}`)
    assert.deepEqual({ events: (await events(c)).length, outbox: await outboxCount(c) }, { events: before.events + 1, outbox: before.outbox + 1 })
  } finally {
    await c.t.close()
  }
})

test('a bulk change emits one event per card; a card that fails inside it emits nothing', async () => {
  const c = await seededApp({ allowPrivateTargets: 'true' })
  try {
    await ok(c, 'POST', '/v1/webhooks', { name: 'all', url: 'http://127.0.0.1:9/x', events: ['card.completed'], boards: [] })
    const ids: string[] = []
    for (let i = 0; i < 3; i++) ids.push((await ok(c, 'POST', '/v1/cards', { board: c.board.id, title: `bulk ${i}` })).card.id)
    const other = (await ok(c, 'POST', '/v1/boards', { name: "Not the member's" })).board
    const hidden = (await ok(c, 'POST', '/v1/cards', { board: other.id, title: 'hidden' })).card.id
    const r = await ok(c, 'POST', '/v1/actions/bulk-complete-cards', { cards: [...ids, hidden], completed: true }, c.tokens.member.write)
    assert.equal(r.updated, 3)
    assert.deepEqual(
      r.failed.map((f: any) => f.id),
      [hidden],
    )
    const completed = (await events(c)).filter((e) => e.name === 'card.completed').map((e) => JSON.parse(e.data).id)
    assert.deepEqual(completed.sort(), [...ids].sort())
    const rows = await dbAll<{ body: string }>(c.t.deps.db, "SELECT body FROM outbox WHERE event = 'card.completed'")
    assert.deepEqual(rows.map((row) => JSON.parse(row.body).data.id).sort(), [...ids].sort(), 'one delivery per card')
  } finally {
    await c.t.close()
  }
})

test('a list deleted with move_to announces each card as a single move would, in order, to subscriptions and automations', async () => {
  const c = await seededApp({ allowPrivateTargets: 'true' })
  try {
    const board = c.board.id
    const [from, to] = c.lists
    const boardName = (await ok(c, 'GET', `/v1/boards/${board}`)).board.name
    const toCategory = (await ok(c, 'GET', `/v1/lists/${to.id}`)).list.category
    // Active, so each event it takes gets an outbox row (to a port nothing listens on; nothing is delivered in this test).
    await ok(c, 'POST', '/v1/webhooks', { name: 'moves', url: 'http://127.0.0.1:9/x', events: ['card.moved'], boards: [board] })
    const before = (await ok(c, 'POST', '/v1/cards', { board, list: to.id, title: 'already there' })).card
    // More cards than one chunk of the cascade moves at a time.
    const made: { id: string; key: string }[] = []
    for (let i = 0; i < 260; i++) made.push((await ok(c, 'POST', '/v1/cards', { board, list: from.id, title: `card ${i}` })).card)
    const target = made[137]
    await ok(c, 'POST', '/v1/automations', {
      name: 'one card',
      board,
      trigger: { type: 'event', events: ['card.moved'], filter: `key = "${target.key}"` },
      steps: [{ type: 'update_card', card: '{event.data.id}', priority: 1 }],
      active: false,
    })
    const auto = (
      await ok(c, 'POST', '/v1/automations', {
        name: 'one card, active',
        board,
        trigger: { type: 'event', events: ['card.moved'], filter: `key = "${target.key}"` },
        steps: [{ type: 'update_card', card: '{event.data.id}', priority: 1 }],
      })
    ).automation
    const seq = Number((await dbGet<{ n: number }>(c.t.deps.db, 'SELECT max(seq) AS n FROM events'))!.n)
    const outbox = await outboxCount(c)
    assert.equal((await c.t.req('DELETE', `/v1/lists/${from.id}?move_to=${to.id}`, { token: c.tokens.member.write })).status, 204)

    const page = await ok(c, 'GET', `/v1/cards?list=${to.id}&sort=position&per_page=500`)
    assert.deepEqual(
      page.items.map((card: { id: string }) => card.id),
      [before.id, ...made.map((m) => m.id)],
      'the cards follow the ones already there, in their order',
    )
    const positions = page.items.map((card: { position: number }) => card.position)
    assert.equal(new Set(positions).size, positions.length, 'positions stay distinct')
    const after = await dbAll<{ name: string; data: string }>(c.t.deps.db, 'SELECT name, data FROM events WHERE seq > ? ORDER BY seq', seq)
    const moves = after.filter((e) => e.name !== 'list.deleted')
    assert.deepEqual(
      moves.map((e) => [e.name, JSON.parse(e.data).id]),
      made.flatMap((m) => [
        ['card.updated', m.id],
        ['card.moved', m.id],
      ]),
    )
    assert.equal(after.at(-1)!.name, 'list.deleted')
    const moved = JSON.parse(moves[1].data)
    assert.deepEqual(
      [moved.from_list, moved.to_list, moved.from_board],
      [
        { id: from.id, name: from.name },
        { id: to.id, name: to.name },
        { id: board, name: boardName },
      ],
    )
    assert.deepEqual(
      [moved.list, moved.board],
      [
        { id: to.id, name: to.name, category: toCategory },
        { id: board, name: boardName },
      ],
    )
    // The lists are bound to different statuses: the card's status changes with its list.
    assert.deepEqual(JSON.parse(moves[0].data).changes, ['list', 'position', 'status'])
    assert.equal((await outboxCount(c)) - outbox, made.length, 'one delivery per card.moved')
    const runs = (await ok(c, 'GET', `/v1/automations/${auto.id}/runs`)).items
    assert.equal(runs.length, 1, 'the automation whose filter names one card runs for that card alone')
  } finally {
    await c.t.close()
  }
})

// A card's completion and its list's category stay together on every path: the API (create, PATCH, move, complete),
// the bulk routes, a list deleted with move_to, automation steps, an approved agent run and the MCP tools.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { AutomationRunner } from '../../src/resources/automations/runner.js'
import { agentApp } from '../helpers/agents.js'
import { seededApp } from '../helpers/app.js'
import { dbAll } from '../helpers/db.js'

type App = Awaited<ReturnType<typeof seededApp>>
interface Card {
  id: string
  list: string
  state: string
  completed: boolean
  completed_at: string | null
}

/** The default lists of the seeded board: To do (unstarted), In progress (started), Done (completed). */
const lists = (c: App) => ({ todo: c.lists[0].id, doing: c.lists[1].id, done: c.lists[2].id })
const getCard = async (c: App, id: string): Promise<Card> => (await c.t.req('GET', `/v1/cards/${id}`, { token: c.tokens.member.read })).body.card
const newCard = async (c: App, body: Record<string, unknown> = {}) => {
  const r = await c.t.req('POST', '/v1/cards', { token: c.tokens.member.write, body: { board: c.board.id, title: 'A card', ...body } })
  assert.equal(r.status, 201, r.text)
  return r.body.card as Card
}
/** A card where the rule puts it: completed exactly when its list is of category completed, with a completion time then. */
function coherent(card: Card, list: string, completed: boolean, what: string) {
  assert.deepEqual(
    { list: card.list, state: card.state === 'completed', completed: card.completed, stamped: card.completed_at !== null },
    { list, state: completed, completed, stamped: completed },
    what,
  )
}
const eventNames = async (c: App, id: string) =>
  (await dbAll<{ name: string; data: string }>(c.t.deps.db, 'SELECT name, data FROM events ORDER BY seq'))
    .filter((e) => JSON.parse(e.data).id === id)
    .map((e) => e.name)

test('API: completing moves a card to the first completed list, re-opening moves it out, a move completes or re-opens it', async () => {
  const c = await seededApp()
  try {
    const l = lists(c)
    const tok = c.tokens.member.write
    const a = await newCard(c)
    coherent(a, l.todo, false, 'a new card, in the first list')
    const done = await c.t.req('POST', `/v1/cards/${a.id}/complete`, { token: tok, body: { completed: true } })
    assert.equal(done.status, 200, done.text)
    coherent(done.body.card, l.done, true, 'completed: moved to Done')
    assert.deepEqual(await eventNames(c, a.id), ['card.created', 'card.updated', 'card.moved', 'card.completed'])
    coherent((await c.t.req('POST', `/v1/cards/${a.id}/complete`, { token: tok, body: { completed: false } })).body.card, l.todo, false, 're-opened: to To do')
    coherent((await c.t.req('POST', `/v1/cards/${a.id}/move`, { token: tok, body: { list: l.done } })).body.card, l.done, true, 'moved into Done')
    coherent((await c.t.req('POST', `/v1/cards/${a.id}/move`, { token: tok, body: { list: l.doing } })).body.card, l.doing, false, 'moved out of Done')
    coherent((await c.t.req('PATCH', `/v1/cards/${a.id}`, { token: tok, body: { completed: true } })).body.card, l.done, true, 'PATCH completed: true')
    coherent((await c.t.req('PATCH', `/v1/cards/${a.id}`, { token: tok, body: { list: l.todo } })).body.card, l.todo, false, 'PATCH list: To do')
    coherent((await c.t.req('PATCH', `/v1/cards/${a.id}`, { token: tok, body: { list: l.done, completed: true } })).body.card, l.done, true, 'both, agreeing')
    coherent(await newCard(c, { completed: true }), l.done, true, 'created completed: in Done')
    coherent(await newCard(c, { list: l.done }), l.done, true, 'created in Done: completed')

    // Contradictions are refused whole, in the error shape, naming the field.
    const b = await newCard(c)
    for (const [method, path, body] of [
      ['PATCH', `/v1/cards/${b.id}`, { list: l.done, completed: false, title: 'Changed' }],
      ['PATCH', `/v1/cards/${b.id}`, { list: l.doing, completed: true }],
      ['POST', '/v1/cards', { board: c.board.id, title: 'x', list: l.todo, completed: true }],
    ] as const) {
      const r = await c.t.req(method, path, { token: tok, body })
      assert.equal(r.status, 422, r.text)
      assert.equal(r.body.error.code, 'validation_failed')
      assert.equal(r.body.error.details[0].path, 'completed')
    }
    coherent(await getCard(c, b.id), l.todo, false, 'nothing of a refused change was written')
    assert.equal((await c.t.req('GET', `/v1/cards/${b.id}`, { token: tok })).body.card.title, 'A card')

    // A board without a completed list keeps a completed card where it is; one with only such lists keeps a re-opened one.
    const plain = (await c.t.req('POST', '/v1/boards', { token: tok, body: { name: 'Plain', lists: ['Only'] } })).body
    const p = await c.t.req('POST', '/v1/cards', { token: tok, body: { board: plain.board.id, title: 'p', completed: true } })
    assert.equal(p.status, 201, p.text)
    assert.deepEqual([p.body.card.list, p.body.card.completed, p.body.card.state], [plain.lists[0].id, true, 'unstarted'])
  } finally {
    await c.t.close()
  }
})

test('bulk routes, a list deleted with move_to and a list recategorized keep completion and list category together', async () => {
  const c = await seededApp()
  try {
    const l = lists(c)
    const tok = c.tokens.member.write
    const ids = [(await newCard(c)).id, (await newCard(c)).id]
    const bulk = async (name: string, body: Record<string, unknown>) => {
      const r = await c.t.req('POST', `/v1/actions/${name}`, { token: tok, body: { cards: ids, ...body } })
      assert.deepEqual(r.body, { updated: 2, failed: [] })
    }
    await bulk('bulk-complete-cards', { completed: true })
    for (const id of ids) coherent(await getCard(c, id), l.done, true, 'bulk completed')
    await bulk('bulk-move-cards', { list: l.doing })
    for (const id of ids) coherent(await getCard(c, id), l.doing, false, 'bulk moved out of Done')
    await bulk('bulk-move-cards', { list: l.done })
    for (const id of ids) coherent(await getCard(c, id), l.done, true, 'bulk moved into Done')
    await bulk('bulk-update-cards', { set: { completed: false } })
    for (const id of ids) coherent(await getCard(c, id), l.todo, false, 'bulk update re-opens')

    // Deleting a list moves its cards with the rule: into a completed list completes them, out of one re-opens them.
    const review = (await c.t.req('POST', '/v1/lists', { token: tok, body: { board: c.board.id, name: 'Shipped', category: 'completed' } })).body.list
    assert.equal((await c.t.req('DELETE', `/v1/lists/${l.todo}?move_to=${review.id}`, { token: tok })).status, 204)
    for (const id of ids) coherent(await getCard(c, id), review.id, true, 'moved into a completed list by a list deletion')
    assert.equal((await c.t.req('DELETE', `/v1/lists/${review.id}?move_to=${l.doing}`, { token: tok })).status, 204)
    for (const id of ids) coherent(await getCard(c, id), l.doing, false, 'moved out of a completed list by a list deletion')

    // A list recategorized into completed completes its cards where they are; out of completed re-opens them.
    const recategorize = async (category: string) =>
      assert.equal((await c.t.req('PATCH', `/v1/lists/${l.doing}`, { token: tok, body: { category } })).status, 200)
    await recategorize('completed')
    for (const id of ids) coherent(await getCard(c, id), l.doing, true, 'their list became completed')
    const before = (await dbAll(c.t.deps.db, "SELECT name FROM events WHERE name IN ('card.completed', 'card.reopened')")).length
    await recategorize('completed')
    await recategorize('started')
    for (const id of ids) coherent(await getCard(c, id), l.doing, false, 'their list is no longer completed')
    const after = (await dbAll(c.t.deps.db, "SELECT name FROM events WHERE name IN ('card.completed', 'card.reopened')")).length
    assert.equal(after - before, 2, 'one card.reopened each; the unchanged category changed nothing')
    await recategorize('unstarted')
    for (const id of ids) coherent(await getCard(c, id), l.doing, false, 'between two open categories nothing changes')
  } finally {
    await c.t.close()
  }
})

test('automation steps (complete_card, update_card, move_card, create_card) follow the same rule', async () => {
  const c = await seededApp()
  const runner = new AutomationRunner(c.t.deps, { log: () => {} })
  try {
    const l = lists(c)
    const tok = c.tokens.admin.write
    const a = await newCard(c)
    const b = await newCard(c)
    const ep = (await c.t.req('POST', '/v1/webhooks/incoming', { token: tok, body: { name: 'Intake' } })).body.incoming_webhook
    const auto = await c.t.req('POST', '/v1/automations', {
      token: tok,
      body: {
        name: 'close',
        board: c.board.id,
        trigger: { type: 'incoming_webhook', endpoint: ep.id },
        steps: [
          { type: 'complete_card', card: a.id },
          { type: 'update_card', card: b.id, completed: true },
          { type: 'move_card', card: b.id, list: l.doing },
          { type: 'create_card', title: 'Made done', list: l.done },
        ],
      },
    })
    assert.equal(auto.status, 201, auto.text)
    const sent = await fetch(ep.url.replace('http://taskd.test', c.t.url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
    assert.equal(sent.status, 202)
    assert.equal(await runner.runOnce(), 1)
    const [run] = (await c.t.req('GET', `/v1/automations/${auto.body.automation.id}/runs`, { token: tok })).body.items
    assert.equal(run.status, 'succeeded', JSON.stringify(run))
    coherent(await getCard(c, a.id), l.done, true, 'complete_card')
    coherent(await getCard(c, b.id), l.doing, false, 'update_card completed, then move_card out of Done')
    coherent(await getCard(c, run.steps[3].output.card.id), l.done, true, 'create_card in Done')
  } finally {
    await runner.stop(1000)
    await c.t.close()
  }
})

test('an approved agent run and the MCP tools complete a card into the completed list', async () => {
  const c = await agentApp()
  let client: Client | undefined
  try {
    const l = lists(c)
    const tok = c.tokens.member.write
    const writer = await c.agent('Writer', { wake_url: `${c.receiver.url}/ok`, signing_secret: c.secret.id, powers: ['auto_start'] })
    const card = await c.card()
    const k = await c.kickoff({ card: card.id, agent: writer.id })
    await c.dispatcher.runOnce()
    const act = (body: Record<string, unknown>) => c.t.req('POST', `/v1/agent-runs/${k.run}/activity`, { token: writer.token, body })
    assert.equal((await act({ type: 'started' })).status, 201)
    assert.equal((await act({ type: 'done_proposed', summary: 'Written' })).status, 201)
    const approved = await c.t.req('POST', `/v1/agent-runs/${k.run}/approve`, { token: tok })
    assert.equal(approved.status, 200, approved.text)
    coherent(await getCard(c, card.id), l.done, true, 'approved run')

    client = new Client({ name: 'taskd-test', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${c.t.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${tok}` } } }))
    const tool = async (name: string, args: Record<string, unknown>) => {
      const r = (await client!.callTool({ name, arguments: args })) as { isError?: boolean; structuredContent?: { card: Card }; content: { text: string }[] }
      assert.ok(!r.isError, `${name}: ${r.content[0].text}`)
      return r.structuredContent!.card
    }
    const m = await c.card('By MCP')
    coherent(await tool('complete_card', { id: m.id }), l.done, true, 'MCP complete_card')
    coherent(await tool('complete_card', { id: m.id, completed: false }), l.todo, false, 'MCP complete_card false')
    coherent(await tool('move_card', { id: m.id, list: l.done }), l.done, true, 'MCP move_card into Done')
    coherent(await tool('update_card', { id: m.id, completed: false }), l.todo, false, 'MCP update_card completed: false')
  } finally {
    await client?.close()
    await c.close()
  }
})

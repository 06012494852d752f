// The n8n nodes of integrations/n8n (built: scripts/n8n-package.sh, which npm test runs first) driven with fake
// execution contexts against a real taskd on 127.0.0.1: every action operation checked through the REST API, errors
// as NodeApiError with taskd's message (or an error item with continueOnFail), the pickers, and the trigger's
// subscription hooks and signature check (the signature computed here with node:crypto, not with the node's code), and
// its secret rotation: both secrets accepted during the overlap, in X-Service-Signature or webhook-signature.
import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { test } from 'node:test'
import { OutboxScheduler } from '../../src/delivery/scheduler.js'
import { type agentApp, withAgentApp } from '../helpers/agents.js'
import { ROOT } from '../helpers/serve.js'

const DIST = path.join(ROOT, 'integrations/n8n/dist')
const load = (file: string) => {
  const full = path.join(DIST, file)
  assert.ok(fs.existsSync(full), `${full} is missing: build integrations/n8n first (bash scripts/n8n-package.sh)`)
  return createRequire(import.meta.url)(full)
}
const { Taskd } = load('nodes/Taskd/Taskd.node.js')
const { TaskdTrigger } = load('nodes/TaskdTrigger/TaskdTrigger.node.js')

type App = Awaited<ReturnType<typeof agentApp>>

/** n8n's httpRequestWithAuthentication for the taskdApi credential, over fetch; a failure throws as n8n's helper does. */
function httpHelper(token: string) {
  return async function (this: unknown, credential: string, opts: { method: string; url: string; body?: object; qs?: Record<string, unknown> }) {
    assert.equal(credential, 'taskdApi')
    const url = new URL(opts.url)
    for (const [k, v] of Object.entries(opts.qs ?? {})) if (v !== undefined) url.searchParams.set(k, String(v))
    const res = await fetch(url, {
      method: opts.method,
      headers: { authorization: `Bearer ${token}`, ...(opts.body ? { 'content-type': 'application/json' } : {}) },
      body: opts.body ? JSON.stringify(opts.body) : undefined,
    })
    const text = await res.text()
    const data = text ? JSON.parse(text) : {}
    if (!res.ok)
      throw Object.assign(new Error(`Request failed with status code ${res.status}`), {
        httpCode: String(res.status),
        cause: { response: { status: res.status, data } },
      })
    return data
  }
}

interface Fake {
  params: Record<string, unknown>
  items?: number
  continueOnFail?: boolean
  staticData?: Record<string, unknown>
  webhookUrl?: string
  request?: { rawBody?: Buffer; headers: Record<string, string>; body: unknown }
  /** n8n's execution mode (a poll in the editor's test is `manual`). */
  mode?: string
  /** What the node logged as warnings. */
  warnings?: string[]
}

/** The parts of IExecuteFunctions, ILoadOptionsFunctions, IHookFunctions and IWebhookFunctions the nodes use. */
function context(s: App, token: string, fake: Fake) {
  const response = { status: 200, body: undefined as unknown }
  const ctx = {
    response,
    getNodeParameter(name: string, _i: number | unknown, fallback?: unknown) {
      if (Object.hasOwn(fake.params, name)) return fake.params[name]
      if (fallback !== undefined || typeof _i !== 'number') return typeof _i === 'number' ? fallback : _i
      throw new Error(`no parameter ${name}`)
    },
    getCurrentNodeParameter: (name: string) => fake.params[name],
    getInputData: () => Array.from({ length: fake.items ?? 1 }, () => ({ json: {} })),
    getCredentials: async () => ({ baseUrl: `${s.t.url}/`, accessToken: token }),
    getNode: () => ({ id: 'n1', name: 'Taskd', type: 'CUSTOM.taskd', typeVersion: 1, position: [0, 0], parameters: {} }),
    continueOnFail: () => fake.continueOnFail ?? false,
    getWorkflow: () => ({ id: 'w1', name: 'Cards to chat', active: true }),
    getWorkflowStaticData: () => (fake.staticData ??= {}),
    getNodeWebhookUrl: () => fake.webhookUrl,
    getMode: () => fake.mode ?? 'trigger',
    getPollBudgetMs: () => 60_000,
    logger: { warn: (message: string) => (fake.warnings ??= []).push(message) },
    getRequestObject: () => fake.request,
    getHeaderData: () => fake.request!.headers,
    getBodyData: () => fake.request!.body,
    getResponseObject: () => ({
      status(code: number) {
        response.status = code
        return this
      },
      json(body: unknown) {
        response.body = body
        return this
      },
    }),
    helpers: {
      httpRequestWithAuthentication: httpHelper(token),
      returnJsonArray: (data: unknown) => (Array.isArray(data) ? data : [data]).map((json) => ({ json })),
    },
  }
  return ctx
}

/** Runs the action node's execute with these parameters; resolves to the output items' json. */
async function execute(s: App, params: Record<string, unknown>, opts: Partial<Fake> = {}, token = s.tokens.member.write): Promise<any[]> {
  const [out] = await new Taskd().execute.call(context(s, token, { params, ...opts }))
  return out.map((item: { json: unknown }) => item.json)
}

test('the action node: every task operation does what it says in taskd', async () => {
  await withAgentApp(async (s) => {
    const { t, tokens } = s
    const read = async (id: string) => (await t.req('GET', `/v1/cards/${id}`, { token: tokens.member.read })).body.card
    const [created] = await execute(s, {
      resource: 'task',
      operation: 'create',
      boardId: s.board.id,
      title: 'From n8n',
      additionalFields: { list: s.lists[1].id, priority: 3, description: '', due_date: '2026-12-01' },
    })
    const card = await read(created.id)
    assert.deepEqual(created, card)
    assert.equal(card.list, s.lists[1].id)
    assert.equal(card.priority, 3)
    assert.equal(card.description, '', 'an empty optional field is left out, not sent')
    // The date pickers give dates only (a date-time without an offset would be refused by taskd).
    const dates = new Taskd().description.properties
      .flatMap((p: { options?: { name: string; type: string; typeOptions?: { dateOnly?: boolean } }[] }) => p.options ?? [])
      .filter((o: { type: string }) => o.type === 'dateTime')
    assert.ok(dates.length >= 2 && dates.every((o: { typeOptions?: { dateOnly?: boolean } }) => o.typeOptions?.dateOnly === true))

    const [updated] = await execute(s, { resource: 'task', operation: 'update', taskId: card.id, updateFields: { title: 'Renamed', priority: 1, xattr: '{}' } })
    assert.equal(updated.title, 'Renamed')
    assert.equal((await read(card.id)).priority, 1)
    // Milestone and status: the status sends the task to the board's first list with it.
    const milestone = (await t.req('POST', '/v1/milestones', { token: tokens.member.write, body: { board: s.board.id, name: 'Beta' } })).body.milestone
    const statuses = (await t.req('GET', `/v1/board-statuses?board=${s.board.id}`, { token: tokens.member.read })).body.items
    const [planned] = await execute(s, {
      resource: 'task',
      operation: 'update',
      taskId: card.id,
      updateFields: { milestone: milestone.id, status: statuses[0].id },
    })
    assert.deepEqual([planned.milestone, planned.list, planned.status.name], [milestone.id, s.lists[0].id, 'To do'])
    // Custom field values as JSON text.
    const field = await t.req('POST', '/v1/xattr', { token: tokens.member.write, body: { board: s.board.id, name: 'Estimate', type: 'number' } })
    assert.equal(field.status, 201, field.text)
    const [sized] = await execute(s, { resource: 'task', operation: 'update', taskId: card.id, updateFields: { xattr: '{"estimate": 3}' } })
    assert.deepEqual(sized.xattr, { estimate: 3 })
    const [made] = await execute(s, {
      resource: 'task',
      operation: 'create',
      boardId: s.board.id,
      title: 'Sized',
      additionalFields: { xattr: { estimate: 1 } },
    })
    assert.deepEqual(made.xattr, { estimate: 1 })
    await execute(s, { resource: 'task', operation: 'move', taskId: card.id, boardId: s.board.id, listId: s.lists[0].id })
    assert.equal((await read(card.id)).list, s.lists[0].id)
    await execute(s, { resource: 'task', operation: 'complete', taskId: card.id, completed: true })
    const completed = await read(card.id)
    assert.deepEqual(
      [completed.completed, completed.state, completed.list],
      [true, 'completed', s.lists[2].id],
      "completing moves it to the board's completed list",
    )
    await execute(s, { resource: 'task', operation: 'complete', taskId: card.id, completed: false })
    const reopened = await read(card.id)
    assert.deepEqual([reopened.completed, reopened.state, reopened.list], [false, 'unstarted', s.lists[0].id], 're-opening moves it out of it')
    const [got] = await execute(s, { resource: 'task', operation: 'get', taskId: card.id })
    assert.deepEqual(got, await read(card.id))

    // Search: the filter language, a board, and paging through every page (or up to a limit).
    for (const title of ['Alpha report', 'Beta report', 'Gamma report']) await s.card(title)
    const search = (extra: Record<string, unknown>) =>
      execute(s, { resource: 'task', operation: 'search', filter: 'title ~ "report"', searchBoardId: s.board.id, sort: 'title', ...extra })
    assert.deepEqual(
      (await search({ returnAll: true })).map((c) => c.title),
      ['Alpha report', 'Beta report', 'Gamma report'],
    )
    assert.deepEqual(
      (await search({ returnAll: false, limit: 2 })).map((c) => c.title),
      ['Alpha report', 'Beta report'],
    )
    // Text: the full-text search of cards, ranked, its results { type, id, title, snippet, card, board, score }.
    const found = await execute(s, { resource: 'task', operation: 'search', searchText: 'repo*', searchBoardId: s.board.id, returnAll: true })
    assert.deepEqual(found.map((r) => [r.type, r.title, r.snippet]).sort(), [
      ['card', 'Alpha report', 'Alpha «report»'],
      ['card', 'Beta report', 'Beta «report»'],
      ['card', 'Gamma report', 'Gamma «report»'],
    ])
    assert.deepEqual(
      found.map((r) => r.id),
      (await t.req('GET', `/v1/search?q=repo*&types=card&board=${s.board.id}`, { token: tokens.member.read })).body.items.map((r: { id: string }) => r.id),
    )
    assert.equal(
      (await execute(s, { resource: 'task', operation: 'search', searchText: 'report', filter: 'title ~ "Alpha"', returnAll: false, limit: 2 })).length,
      2,
    )
    // The three, the card made first and the one made with a custom field value.
    assert.equal((await execute(s, { resource: 'task', operation: 'search', filter: '', searchBoardId: '', returnAll: true })).length, 5)
    // A limit past one page: the same page size on every page, so nothing repeats.
    for (let n = 0; n < 503; n++) await s.card(`Bulk ${String(n).padStart(3, '0')}`)
    const many = await execute(s, { resource: 'task', operation: 'search', filter: 'title ~ "Bulk"', sort: 'title', returnAll: false, limit: 502 })
    assert.equal(many.length, 502)
    assert.equal(new Set(many.map((c) => c.id)).size, 502, 'no card twice')
    assert.equal(many[501].title, 'Bulk 501')
  })
})

test('the action node: comment, note, timer, agent kickoff and incoming endpoint trigger', async () => {
  await withAgentApp(async (s) => {
    const { t, tokens } = s
    const card = await s.card('Launch post')
    const [comment] = await execute(s, { resource: 'comment', operation: 'add', taskId: card.id, body: 'Looks good' })
    assert.equal((await t.req('GET', `/v1/comments/${comment.id}`, { token: tokens.member.read })).body.comment.body, 'Looks good')

    const [note] = await execute(s, {
      resource: 'note',
      operation: 'create',
      noteTitle: 'Plan',
      noteBody: 'Steps',
      noteFields: { board: s.board.id, card: '' },
    })
    const restNote = (await t.req('GET', `/v1/notes/${note.id}`, { token: tokens.member.read })).body.note
    assert.deepEqual([restNote.title, restNote.board], ['Plan', s.board.id])

    const [started] = await execute(s, { resource: 'timer', operation: 'start', taskId: card.id, timerNote: 'writing' })
    s.t.clock.advance(60_000)
    const [stopped] = await execute(s, { resource: 'timer', operation: 'stop' })
    assert.equal(stopped.id, started.id)
    assert.equal(stopped.duration_seconds, 60)

    const agent = await s.agent('Scribe', { powers: ['local_access'] })
    const [kickoff] = await execute(s, {
      resource: 'agent',
      operation: 'kickOff',
      taskId: card.id,
      agentId: agent.id,
      agentWorkflowId: '',
      kickoffOptions: { powers: ['local_access'], model: 'fast', effort: 'high', message: 'Proofread' },
    })
    const restKickoff = await s.getKickoff(kickoff.id)
    assert.deepEqual([restKickoff.agent.id, restKickoff.powers, restKickoff.model, restKickoff.effort], [agent.id, ['local_access'], 'fast', 'high'])

    const endpoint = (await t.req('POST', '/v1/webhooks/incoming', { token: tokens.admin.write, body: { name: 'n8n in', boards: [s.board.id] } })).body
      .incoming_webhook
    const [accepted] = await execute(s, { resource: 'workflow', operation: 'trigger', endpointId: endpoint.id, payload: '{"order": 42}' })
    assert.equal(accepted.accepted, true)
    const logs = (await t.req('GET', `/v1/webhooks/incoming/${endpoint.id}/logs`, { token: tokens.admin.read })).body.items
    assert.equal(logs.length, 1)
    assert.deepEqual(JSON.parse(logs[0].body), { order: 42 })
    await assert.rejects(execute(s, { resource: 'workflow', operation: 'trigger', endpointId: endpoint.id, payload: '{nope' }), /The body must be valid JSON/)
  })
})

test('the action node: an API error is a NodeApiError with taskd’s message; continueOnFail makes it an error item', async () => {
  await withAgentApp(async (s) => {
    const message = (await s.t.req('GET', '/v1/cards/nosuchcard', { token: s.tokens.member.read })).body.error.message
    await assert.rejects(execute(s, { resource: 'task', operation: 'get', taskId: 'nosuchcard' }), (err: Error) => {
      assert.equal(err.constructor.name, 'NodeApiError')
      assert.equal(err.message, message)
      return true
    })
    // A 422 names the field in the description.
    await assert.rejects(execute(s, { resource: 'task', operation: 'create', boardId: s.board.id, title: '   ' }), (err: Error & { description?: string }) => {
      assert.equal(err.constructor.name, 'NodeApiError')
      assert.match(err.description ?? '', /^title: /)
      return true
    })
    // A read only token: the API's 403 message.
    await assert.rejects(execute(s, { resource: 'task', operation: 'create', boardId: s.board.id, title: 'x' }, {}, s.tokens.member.read), /read only/)
    // Two items, the second fails: each output is paired with its input.
    const out = await new Taskd().execute.call(
      context(s, s.tokens.member.write, { params: { resource: 'task', operation: 'get', taskId: 'nosuchcard' }, items: 2, continueOnFail: true }),
    )
    assert.deepEqual(
      out[0].map((i: { json: { error: string }; pairedItem: { item: number } }) => [i.json.error, i.pairedItem.item]),
      [
        [message, 0],
        [message, 1],
      ],
    )
  })
})

test('the pickers load boards, lists, agents, agent workflows and incoming endpoints from the API', async () => {
  await withAgentApp(async (s) => {
    const agent = await s.agent('Scribe', { powers: ['local_access'] })
    const endpoint = (await s.t.req('POST', '/v1/webhooks/incoming', { token: s.tokens.admin.write, body: { name: 'Orders', boards: [s.board.id] } })).body
      .incoming_webhook
    const methods = new Taskd().methods.loadOptions
    const ctx = (params: Record<string, unknown> = {}) => context(s, s.tokens.member.write, { params })
    assert.deepEqual(await methods.getBoards.call(ctx()), [{ name: 'Launch', value: s.board.id }])
    assert.deepEqual(
      await methods.getLists.call(ctx({ boardId: s.board.id })),
      s.lists.map((l) => ({ name: l.name, value: l.id })),
    )
    assert.deepEqual(await methods.getLists.call(ctx({ boardId: '' })), [])
    assert.deepEqual((await methods.getAgents.call(ctx())).slice(1), [{ name: 'Scribe', value: agent.id }])
    assert.deepEqual(await methods.getIncomingEndpoints.call(context(s, s.tokens.admin.write, { params: {} })), [{ name: 'Orders', value: endpoint.id }])
    assert.equal((await methods.getAgentWorkflows.call(ctx()))[0].value, '')
    const events = await new TaskdTrigger().methods.loadOptions.getEvents.call(ctx())
    const values = events.map((e: { value: string }) => e.value)
    assert.equal(values[0], '*')
    assert.ok(values.includes('card.*') && values.includes('card.created') && values.includes('comment.added'), values.join(','))
  })
})

test('the trigger registers its subscription, finds it, removes it, and checks every delivery’s signature', async () => {
  await withAgentApp(async (s) => {
    const { t, tokens } = s
    const trigger = new TaskdTrigger()
    const hooks = trigger.webhookMethods.default
    // Nothing listens on this port and no event happens while the subscription exists: no delivery is attempted.
    const fake: Fake = { params: { events: ['card.created', 'comment.*'], boards: [s.board.id] }, webhookUrl: 'http://127.0.0.1:9/webhook/abc/webhook' }
    const ctx = context(s, tokens.member.write, fake)
    assert.equal(await hooks.checkExists.call(ctx), false)
    assert.equal(await hooks.create.call(ctx), true)
    const subs = (await t.req('GET', '/v1/webhooks', { token: tokens.member.read })).body.items
    assert.equal(subs.length, 1)
    assert.deepEqual(
      [subs[0].name, subs[0].url, subs[0].events, subs[0].boards, subs[0].has_secret],
      ['n8n: Cards to chat', fake.webhookUrl, ['card.created', 'comment.*'], [s.board.id], true],
    )
    const secret = fake.staticData!.secret as string
    assert.match(secret, /^[0-9a-f]{64}$/)
    assert.equal(await hooks.checkExists.call(ctx), true)
    assert.equal(await hooks.delete.call(ctx), true)
    assert.equal((await t.req('GET', '/v1/webhooks', { token: tokens.member.read })).body.totalItems, 0)
    assert.equal(await hooks.checkExists.call(ctx), false)
    assert.equal(await hooks.delete.call(ctx), true, 'deleting again is fine')
    // n8n's URL changed: the old subscription is removed (no secret is left to check its deliveries), then made anew.
    assert.equal(await hooks.create.call(ctx), true)
    const moved = context(s, tokens.member.write, { ...fake, webhookUrl: 'http://127.0.0.1:9/webhook/moved/webhook' })
    assert.equal(await hooks.checkExists.call(moved), false)
    assert.equal((await t.req('GET', '/v1/webhooks', { token: tokens.member.read })).body.totalItems, 0)
    await assert.rejects(hooks.create.call(context(s, tokens.member.write, { ...fake, params: { events: [], boards: [] } })), /at least one event/)

    // Deliveries: the signature is checked against the raw bytes, in the header taskd sends.
    const body = { id: 'd1', event: 'card.created', data: { id: 'c1', title: 'Hello' } }
    const raw = Buffer.from(JSON.stringify(body))
    const sign = (key: string, bytes: Buffer) => 'sha256=' + createHmac('sha256', key).update(bytes).digest('hex')
    const deliver = async (headers: Record<string, string>, bytes = raw) => {
      const c = context(s, tokens.member.write, { params: {}, staticData: { subscriptionId: 'x', secret }, request: { rawBody: bytes, headers, body } })
      return { result: await trigger.webhook.call(c), response: c.response }
    }
    const good = await deliver({ 'x-service-signature': sign(secret, raw) })
    assert.deepEqual(good.result.workflowData, [[{ json: body }]])
    const forged: Record<string, string>[] = [
      {},
      { 'x-service-signature': sign('another secret', raw) },
      { 'x-service-signature': sign(secret, raw).slice(0, -1) },
    ]
    for (const headers of forged) {
      const bad = await deliver(headers)
      assert.equal(bad.result.workflowData, undefined)
      assert.equal(bad.result.noWebhookResponse, true)
      assert.equal(bad.response.status, 401)
    }
    const unread = context(s, tokens.member.write, {
      params: {},
      staticData: { secret },
      request: { headers: { 'x-service-signature': sign(secret, raw) }, body },
    })
    assert.equal((await trigger.webhook.call(unread)).noWebhookResponse, true, 'no raw body, no run')
    const noSecret = context(s, tokens.member.write, {
      params: {},
      staticData: {},
      request: { rawBody: raw, headers: { 'x-service-signature': sign('', raw) }, body },
    })
    assert.equal((await trigger.webhook.call(noSecret)).noWebhookResponse, true, 'no secret kept, no run')
    const tampered = await deliver({ 'x-service-signature': sign(secret, raw) }, Buffer.from(JSON.stringify({ ...body, event: 'card.deleted' })))
    assert.equal(tampered.response.status, 401, 'the signature covers the bytes received')
  })
})

test('the trigger’s polling mode: the first poll takes the present cursor, later ones the selected events since, kept in static data', async () => {
  await withAgentApp(async (s) => {
    const { t, tokens } = s
    const trigger = new TaskdTrigger()
    const card = async (title: string) => {
      const r = await t.req('POST', '/v1/cards', { token: tokens.member.write, body: { board: s.board.id, title } })
      assert.equal(r.status, 201, r.text)
      return r.body.card
    }
    const created = (out: { json: any }[][] | null) => (out ?? [[]])[0].map((i) => `${i.json.event} ${i.json.data.title ?? i.json.data.id}`)
    assert.equal(await trigger.poll.call(context(s, tokens.member.read, { params: { events: ['card.*'] } })), null, 'the webhook mode does not poll')
    const fake: Fake = { params: { delivery: 'poll', events: ['card.created'], boards: [s.board.id] }, staticData: {}, warnings: [] }
    const kept = () => fake.staticData!.cursor as string | undefined
    const poll = (mode?: string) => trigger.poll.call(context(s, tokens.member.read, { ...fake, mode }))
    assert.equal(await trigger.webhookMethods.default.checkExists.call(context(s, tokens.member.write, fake)), true, 'polling needs no subscription')
    assert.deepEqual((await t.req('GET', '/v1/webhooks', { token: tokens.member.read })).body.items, [])
    await card('Before activation')
    assert.deepEqual(created(await poll('manual')), ['card.created Before activation'], 'a test run before any poll shows the newest event')
    assert.equal(kept(), undefined, 'a test run takes no cursor')
    assert.equal(await poll(), null, 'the first poll only takes the cursor of the present moment')
    const cursor = kept()!
    assert.ok(cursor)
    assert.equal(await poll(), null, 'nothing new')
    const first = await card('First')
    assert.equal((await t.req('POST', '/v1/comments', { token: tokens.member.write, body: { card: first.id, body: 'Not selected' } })).status, 201)
    await card('Second')
    assert.deepEqual(created(await poll('manual')), ['card.created First', 'card.created Second'], 'a test run shows what the next poll takes')
    assert.equal(kept(), cursor, 'without taking it')
    const out: { json: any }[][] | null = await poll()
    assert.deepEqual(created(out), ['card.created First', 'card.created Second'])
    // Each item is the change feed's, which is a webhook delivery's body.
    const feed = (await t.req('GET', `/v1/events?after=${cursor}&events=card.created`, { token: tokens.member.read })).body
    assert.deepEqual(
      out![0].map((i: { json: unknown }) => i.json),
      feed.items,
    )
    assert.notEqual(kept(), cursor)
    assert.equal(await poll(), null, 'taken once')
    // Polls stopped for longer than taskd keeps events: the node goes on from now, saying so.
    t.clock.advance(31 * 86_400_000)
    const stale = kept()
    assert.equal(await poll(), null)
    assert.notEqual(kept(), stale)
    assert.match((fake.warnings ?? []).join('\n'), /cursor_expired/)
    await card('After the gap')
    assert.deepEqual(created(await poll()), ['card.created After the gap'])
  })
})

test('the trigger rotates its own secret when n8n registers it again, and accepts a delivery signed with either secret during the overlap', async () => {
  await withAgentApp(async (s) => {
    const { t, tokens } = s
    // The trigger checks webhook-timestamp against the real time: taskd's clock is set to it.
    t.clock.t = Date.now()
    const scheduler = new OutboxScheduler(t.deps, { log: () => {} })
    try {
      const trigger = new TaskdTrigger()
      const hooks = trigger.webhookMethods.default
      const fake: Fake = { params: { events: ['card.created'], boards: [s.board.id] }, webhookUrl: `${s.receiver.url}/ok?n8n` }
      const ctx = context(s, tokens.member.write, fake)
      assert.equal(await hooks.checkExists.call(ctx), false)
      assert.equal(await hooks.create.call(ctx), true)
      const state = fake.staticData as { subscriptionId: string; secret: string; previousSecret?: string; previousUntil?: number }
      const first = state.secret
      // n8n registers the trigger again (a restart): it finds its subscription and rotates the secret, 1 hour of overlap.
      const before = Date.now()
      assert.equal(await hooks.checkExists.call(ctx), true)
      const second = state.secret
      assert.notEqual(second, first)
      assert.equal(state.previousSecret, first)
      assert.ok(state.previousUntil! >= before + 3_600_000 && state.previousUntil! <= Date.now() + 3_600_000)
      const sub = (await t.req('GET', `/v1/webhooks/${state.subscriptionId}`, { token: tokens.member.read })).body.webhook
      assert.equal(sub.secret_rotating_until, new Date(t.clock.now() + 3_600_000).toISOString())

      // A real delivery, as taskd signs it during the overlap, handed to the trigger as n8n would.
      await t.req('POST', '/v1/cards', { token: tokens.member.write, body: { board: s.board.id, title: 'Rotated' } })
      assert.equal(await scheduler.runOnce(), 1)
      const hit = s.receiver.hits.find((h) => h.path.endsWith('?n8n'))!
      assert.equal(String(hit.headers['webhook-signature']).split(' ').length, 2, 'v1,<new> v1,<old>')
      const deliver = async (
        staticData: Record<string, unknown>,
        bytes = Buffer.from(hit.body),
        headers: Record<string, string> = hit.headers as Record<string, string>,
      ) => {
        const c = context(s, tokens.member.write, { params: {}, staticData, request: { rawBody: bytes, headers, body: hit.json } })
        const result = await trigger.webhook.call(c)
        return result.workflowData ? 200 : c.response.status
      }
      const inAnHour = Date.now() + 3_600_000
      assert.equal(await deliver({ secret: second, previousSecret: first, previousUntil: inAnHour }), 200, 'the trigger’s state after the rotation')
      assert.equal(await deliver({ secret: second }), 200, 'the new secret: X-Service-Signature')
      assert.equal(await deliver({ secret: first }), 200, 'the old secret alone (state not saved yet): webhook-signature carries it')
      assert.equal(await deliver({ secret: 'another secret' }), 401)
      assert.equal(await deliver({ secret: second }, Buffer.from(hit.body.replace('Rotated', 'Forged'))), 401, 'the bytes received are what is signed')

      // Signed as during the overlap, checked with node:crypto here: the old secret is accepted until the overlap ends, then not.
      const raw = Buffer.from(JSON.stringify({ id: 'd2', event: 'card.created', data: {} }))
      const service = (key: string) => ({ 'x-service-signature': 'sha256=' + createHmac('sha256', key).update(raw).digest('hex') })
      const standard = (keys: string[], seconds = Math.floor(Date.now() / 1000)) => ({
        'webhook-id': 'd2',
        'webhook-timestamp': String(seconds),
        'webhook-signature': keys.map((k) => 'v1,' + createHmac('sha256', k).update(`d2.${seconds}.`).update(raw).digest('base64')).join(' '),
      })
      const rotating = { secret: second, previousSecret: first, previousUntil: inAnHour }
      const over = { ...rotating, previousUntil: Date.now() - 1 }
      assert.equal(await deliver(rotating, raw, service(first)), 200, 'a delivery signed before the rotation, in flight')
      assert.equal(await deliver(over, raw, service(first)), 401, 'after the overlap: the old secret no longer')
      assert.equal(await deliver(over, raw, service(second)), 200)
      assert.equal(await deliver(over, raw, standard([second])), 200)
      assert.equal(await deliver(over, raw, standard([first])), 401)
      assert.equal(await deliver(rotating, raw, standard([first])), 200)
      assert.equal(await deliver(rotating, raw, standard([second, first], Math.floor(Date.now() / 1000) - 6 * 60)), 401, 'too old: a replay')

      // Deactivation forgets both secrets.
      assert.equal(await hooks.delete.call(ctx), true)
      assert.deepEqual(fake.staticData, {})
    } finally {
      await scheduler.stop(1000)
    }
  })
})

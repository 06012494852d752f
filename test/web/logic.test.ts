// The web app's logic outside a browser: its modules bundled by esbuild and run in node against a real taskd app, with
// the few browser globals they read stubbed (location, document). The midpoint rule of moves; the API client's CSRF
// header, its errors and its 401 hook; the change feed's loop (cursor taken first, events handed on, 410 reloads); the
// automation form's bodies, each trigger and action, as the API takes them.
import assert from 'node:assert/strict'
import path from 'node:path'
import { after, before, describe, test } from 'node:test'
import * as esbuild from 'esbuild'
import { startTestApp, type TestApp } from '../helpers/app.js'
import { ROOT } from '../helpers/serve.js'
import { until } from '../helpers/until.js'

// The modules' shapes as these tests use them (web/ is its own TypeScript project, with the DOM's types).
interface Positions {
  between(before: number | undefined, after: number | undefined): number | undefined
  positionAt(others: { position: number }[], index: number): number | undefined
}
interface ApiErrorLike {
  status: number
  code: string
  details: { path: string; message: string }[]
}
type Call = Promise<{ data?: any; error?: unknown; response: Response }>
interface Client {
  api: { GET(path: string, init?: object): Call; POST(path: string, init?: object): Call }
  ok(call: Call, opts?: { quiet401?: boolean }): Promise<any>
  ApiError: new (...args: any[]) => ApiErrorLike
  setCsrfToken(token: string | null): void
  onUnauthorized(fn: () => void): void
}
interface AutomationForm {
  ACTIONS: { type: string }[]
  newDraft(board: string): Record<string, any> & { actions: Record<string, any>[] }
  newAction(type: string, trigger: string): Record<string, any>
  automationBody(draft: object): Record<string, any>
}
interface Feed {
  onEvents(fn: (events: { event: string; data: Record<string, unknown> }[]) => void): () => void
  startFeed(): Promise<void>
  stopFeed(): void
  feedState: { value: string }
}

/** A module of web/src with what it imports, as node runs it. */
async function webModule<T>(entry: string): Promise<T> {
  const built = await esbuild.build({
    entryPoints: [path.join(ROOT, 'web/src', entry)],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    mainFields: ['module', 'main'],
    target: 'es2022',
    write: false,
    logLevel: 'warning',
  })
  return (await import(`data:text/javascript;base64,${Buffer.from(built.outputFiles[0].text).toString('base64')}`)) as T
}

test('a moved card lands at the midpoint of its new neighbours, or one past the end it goes to', async () => {
  const { between, positionAt } = await webModule<Positions>('store/positions.ts')
  assert.equal(between(undefined, undefined), undefined)
  assert.equal(between(undefined, 5), 4)
  assert.equal(between(5, undefined), 6)
  assert.equal(between(2, 3), 2.5)
  const list = [{ position: 1 }, { position: 2 }, { position: 4 }]
  assert.equal(positionAt(list, 0), 0)
  assert.equal(positionAt(list, 2), 3)
  assert.equal(positionAt(list, 3), 5)
  assert.equal(positionAt([], 0), undefined)
})

describe('the API client and the change feed', () => {
  let t: TestApp
  let token: string
  let board: string
  let expire = false
  let reloads = 0
  const sent: Request[] = []
  const realFetch = globalThis.fetch
  const g = globalThis as any

  before(async () => {
    t = await startTestApp()
    const owner = await t.user('owner')
    token = await t.token(owner.id, 'write')
    board = (await t.req('POST', '/v1/boards', { token, body: { name: 'Live', key_prefix: 'LIV' } })).body.board.id
    // What the modules read of a browser: the page's origin (and reload), the page's visibility; fetch as the browser's
    // own, here with the token a cookie would stand for, and a cursor the server would have expired when `expire`.
    g.location = { origin: t.url, reload: () => reloads++ }
    g.document = { visibilityState: 'visible', addEventListener() {}, removeEventListener() {} }
    g.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
      const req = new Request(input, init)
      sent.push(req.clone())
      const url = new URL(req.url)
      if (expire && url.pathname === '/v1/events' && url.searchParams.get('after') !== 'now')
        return Response.json({ error: { code: 'cursor_expired', message: 'The cursor has expired.' } }, { status: 410 })
      req.headers.set('authorization', `Bearer ${token}`)
      return realFetch(req)
    }
  })

  after(async () => {
    g.fetch = realFetch
    delete g.location
    delete g.document
    await t.close()
  })

  test('writes carry the CSRF token, errors become ApiError with their details, a 401 calls the hook', async () => {
    const client = await webModule<Client>('api/client.ts')
    client.setCsrfToken('csrf-123')
    const made = await client.ok(client.api.POST('/v1/cards', { body: { board, title: 'From the client' } }))
    assert.equal(made.card.title, 'From the client')
    const post = [...sent].reverse().find((r) => r.method === 'POST')!
    assert.equal(post.headers.get('x-csrf-token'), 'csrf-123')
    await client.ok(client.api.GET('/v1/cards/{id}', { params: { path: { id: made.card.id } } }))
    assert.equal(sent.at(-1)!.headers.get('x-csrf-token'), null, 'a GET sends no CSRF token')
    const refused = await client.ok(client.api.POST('/v1/cards', { body: { board: 'nope', title: '' } })).catch((e: unknown) => e)
    assert.ok(refused instanceof client.ApiError, String(refused))
    assert.ok(refused.status >= 400 && refused.status < 500)
    assert.ok(refused.details.length > 0 || refused.status === 404, JSON.stringify(refused))
    let unauthorized = 0
    client.onUnauthorized(() => unauthorized++)
    const saved = token
    token = 'tt_not_a_token'
    const failed = await client.ok(client.api.GET('/v1/users/me')).catch((e: unknown) => e)
    token = saved
    assert.ok(failed instanceof client.ApiError && failed.status === 401)
    assert.equal(unauthorized, 1)
    const quiet = await client.ok(client.api.GET('/v1/users/me'), { quiet401: true }).catch(() => undefined)
    assert.ok(quiet)
  })

  test('the feed takes its cursor first, hands on what commits after it, and reloads the page on 410', async () => {
    const feed = await webModule<Feed>('live/feed.ts')
    const seen: { event: string; data: Record<string, unknown> }[] = []
    const stop = feed.onEvents((events) => seen.push(...events))
    try {
      await feed.startFeed()
      assert.equal(sent.at(-1)!.url.includes('after=now'), true, 'the head is taken first')
      assert.equal(feed.feedState.value, 'live')
      const card = (await t.req('POST', '/v1/cards', { token, body: { board, title: 'Made after the cursor' } })).body.card
      await until('the card.created event', () => seen.some((e) => e.event === 'card.created' && e.data.id === card.id))
      assert.ok(!seen.some((e) => e.data.title === 'From the client'), 'nothing from before the cursor')
      // The next read answers 410: the page reloads (and loads everything again from a new cursor).
      expire = true
      await t.req('PATCH', `/v1/cards/${card.id}`, { token, body: { title: 'Renamed' } })
      await until('the reload', () => reloads > 0)
    } finally {
      stop()
      feed.stopFeed()
      expire = false
    }
  })

  test('the automation form makes bodies the API takes: each trigger, each action, and empty required fields named', async () => {
    const form = await webModule<AutomationForm>('settings/automation-body.ts')
    const list = (await t.req('GET', `/v1/lists?board=${board}`, { token })).body.items[0].id
    const fill: Record<string, Record<string, string>> = {
      create_card: { title: 'Follow up on {event.data.title}', list, text: 'Made by an automation' },
      move_card: { list },
      complete_card: {},
      add_comment: { text: 'Seen: {event.name}' },
      kickoff_agent: { text: 'Have a look' },
      http_request: { method: 'PUT', url: 'https://93.184.215.14/hook/{event.data.id}', text: '{"card":"{event.data.id}"}' },
    }
    const draft = form.newDraft(board)
    draft.name = 'Every action'
    draft.filter = 'priority >= 3'
    draft.actions = form.ACTIONS.filter((a) => a.type !== 'kickoff_agent').map((a) => ({ ...form.newAction(a.type, 'event'), ...fill[a.type] }))
    const body = form.automationBody(draft)
    assert.deepEqual(body.trigger, { type: 'event', events: ['card.completed'], filter: 'priority >= 3' })
    assert.deepEqual(
      body.steps.find((st: { type: string }) => st.type === 'create_card'),
      { type: 'create_card', title: 'Follow up on {event.data.title}', list, description: 'Made by an automation' },
    )
    assert.deepEqual(
      body.steps.find((st: { type: string }) => st.type === 'http_request'),
      {
        type: 'http_request',
        method: 'PUT',
        url: 'https://93.184.215.14/hook/{event.data.id}',
        body: '{"card":"{event.data.id}"}',
      },
    )
    // Made turned off: nothing here is meant to run them.
    const made = await t.req('POST', '/v1/automations', { token, body: { ...body, active: false } })
    assert.equal(made.status, 201, made.text)
    assert.deepEqual(made.body.automation.steps, body.steps)
    // Its request points away from 127.0.0.1: deleted at once.
    assert.equal((await t.req('DELETE', `/v1/automations/${made.body.automation.id}`, { token })).status, 204)
    // A schedule, with a step on the card a first step made.
    const scheduled = { ...form.newDraft(board), name: 'Weekly', trigger: 'schedule', cron: '0 9 * * 1', timezone: 'Europe/Berlin' }
    scheduled.actions = [
      { ...form.newAction('create_card', 'schedule'), title: 'Weekly review' },
      { ...form.newAction('add_comment', 'schedule'), text: 'Agenda' },
    ]
    const weekly = form.automationBody(scheduled)
    assert.deepEqual(weekly.trigger, { type: 'schedule', cron: '0 9 * * 1', timezone: 'Europe/Berlin' })
    assert.equal(weekly.steps[1].card, '{steps.1.card.id}')
    assert.equal((await t.req('POST', '/v1/automations', { token, body: { ...weekly, active: false } })).status, 201)
    // A required field left empty is sent empty: the API's answer names it.
    const empty = form.newDraft(board)
    empty.name = 'Empty comment'
    const refused = await t.req('POST', '/v1/automations', { token, body: form.automationBody(empty) })
    assert.equal(refused.status, 422, refused.text)
    assert.ok(
      refused.body.error.details.some((d: { path: string }) => d.path.startsWith('steps')),
      refused.text,
    )
  })
})

// The web app's logic outside a browser: its modules bundled by esbuild and run in node against a real taskd app, with
// the few browser globals they read stubbed (location, document). The midpoint rule of moves; the API client's CSRF
// header, its errors and its 401 hook; the change feed's loop (cursor taken first, events handed on, 410 reloads).
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
})

// Table-driven API scenarios: each row is a request and the status and JSON subset it must answer.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { TestApp } from './app.js'
import { dbAll, dbGet } from './db.js'

/** Asserts that `actual` contains everything in `expected` (objects by key, arrays element-wise and same length). */
export function assertSubset(actual: unknown, expected: unknown, at = 'body'): void {
  if (expected !== null && typeof expected === 'object') {
    assert.ok(actual !== null && typeof actual === 'object', `${at}: expected an object, got ${JSON.stringify(actual)}`)
    if (Array.isArray(expected)) {
      assert.ok(Array.isArray(actual), `${at}: expected an array`)
      assert.equal((actual as unknown[]).length, expected.length, `${at}: array length`)
      expected.forEach((e, i) => assertSubset((actual as unknown[])[i], e, `${at}[${i}]`))
      return
    }
    for (const [k, v] of Object.entries(expected)) assertSubset((actual as Record<string, unknown>)[k], v, `${at}.${k}`)
    return
  }
  assert.deepEqual(actual, expected, `${at}: ${JSON.stringify(actual)} !== ${JSON.stringify(expected)}`)
}

export interface Scenario<C> {
  name: string
  method: string
  path: string | ((c: C) => string)
  token?: (c: C) => string | undefined
  body?: unknown | ((c: C) => unknown)
  /** A body sent as it is (a multipart form); a function of the fixture when it names the fixture's ids. */
  raw?: string | ((c: C) => string)
  headers?: Record<string, string>
  status: number
  /** For a 422: the dotted path of the field that failed; the reply's details must name it. */
  field?: string
  /** The event names the request must emit, in order ([] for none); unchecked when absent. */
  events?: string[]
  expect?: unknown | ((c: C) => unknown)
  /** Extra checks after the response. */
  after?: (c: C, reply: { status: number; body: any }) => void | Promise<void>
}

/** Runs each scenario as its own test on a fresh fixture from `setup`. */
export function runScenarios<C extends { t: TestApp }>(title: string, setup: () => Promise<C>, scenarios: Scenario<C>[]): void {
  for (const s of scenarios) {
    test(`${title}: ${s.name}`, async () => {
      if (s.status === 422 && s.field === undefined) throw new Error(`${s.name}: a validation row must name the field that failed`)
      const c = await setup()
      try {
        const lastEvent = await eventSeq(c.t)
        const reply = await c.t.req(s.method, typeof s.path === 'function' ? s.path(c) : s.path, {
          token: s.token?.(c),
          body: typeof s.body === 'function' ? (s.body as (c: C) => unknown)(c) : s.body,
          raw: typeof s.raw === 'function' ? s.raw(c) : s.raw,
          headers: s.headers,
        })
        assert.equal(reply.status, s.status, `status ${reply.status}: ${reply.text}`)
        if (reply.status >= 400) assertErrorShape(reply.body)
        if (s.field !== undefined) {
          const paths = (reply.body.error.details ?? []).map((d: { path: string }) => d.path)
          assert.ok(paths.includes(s.field), `the details name ${s.field}: ${JSON.stringify(reply.body.error.details)}`)
        }
        if (s.events !== undefined) assert.deepEqual(await eventsSince(c.t, lastEvent), s.events, 'events emitted')
        if (s.expect !== undefined) assertSubset(reply.body, typeof s.expect === 'function' ? (s.expect as (c: C) => unknown)(c) : s.expect)
        await s.after?.(c, reply)
      } finally {
        await c.t.close()
      }
    })
  }
}

const eventSeq = async (t: TestApp): Promise<number> => Number((await dbGet<{ n: number }>(t.deps.db, 'SELECT COALESCE(MAX(seq), 0) AS n FROM events'))!.n)
const eventsSince = async (t: TestApp, seq: number): Promise<string[]> =>
  (await dbAll<{ name: string }>(t.deps.db, 'SELECT name FROM events WHERE seq > ? ORDER BY seq', seq)).map((e) => e.name)

export function assertErrorShape(body: any): void {
  assert.ok(body && typeof body.error === 'object', `error body: ${JSON.stringify(body)}`)
  assert.equal(typeof body.error.code, 'string')
  assert.equal(typeof body.error.message, 'string')
  assert.ok(!/\bat .*\.(js|ts):\d+/.test(JSON.stringify(body)), 'no stack trace in errors')
  assert.deepEqual(Object.keys(body).sort(), ['error'])
}

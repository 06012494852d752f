// Crash safety: SIGKILL the server while deliveries are in flight, restart it, and every event still arrives, repeats carrying the same id.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { verify } from '@octokit/webhooks-methods'
import { freshDatabase, type TestDatabase } from '../helpers/database.js'
import { serve, type Served } from '../helpers/serve.js'
import { startReceiver, type Receiver } from './fixtures.js'
import { until } from '../helpers/until.js'

const N = 40

const serveForCrash = (db: TestDatabase) =>
  serve(db.db, { ...db.env, TASKD_ALLOW_PRIVATE_TARGETS: 'true', TASKD_WEBHOOK_LEASE_MS: '1500', TASKD_WEBHOOK_TIMEOUT_MS: '3000' })

async function call(s: Served, token: string, method: string, p: string, body?: unknown): Promise<any> {
  const res = await fetch(s.url + p, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })
  const json = await res.json()
  if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(json)}`)
  return json
}

test('SIGKILL mid-delivery, restart: every event delivered at least once, repeats carry the same delivery id', { timeout: 60_000 }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-crash-'))
  const db = await freshDatabase(dir)
  let receiver: Receiver | undefined
  let first: Served | undefined
  let second: Served | undefined
  try {
    receiver = await startReceiver()
    first = await serveForCrash(db)
    const token = first.token!
    assert.ok(token, 'first run prints a setup token')
    const board = (await call(first, token, 'POST', '/v1/boards', { name: 'Crash' })).board
    const secret = 'crash-secret'
    await call(first, token, 'POST', '/v1/webhooks', { name: 'slow', url: `${receiver.url}/slow/250`, events: ['card.created'], boards: [], secret })
    const cards: string[] = []
    for (let i = 0; i < N; i++) cards.push((await call(first, token, 'POST', '/v1/cards', { board: board.id, title: `card ${i}` })).card.id)
    const hits = receiver.hits
    await until('deliveries in flight', () => hits.filter((h) => !h.answered).length >= 4)
    first.child.kill('SIGKILL')
    await first.exited
    // Received but never answered: the dead process cannot have recorded these, so they must come again.
    const cutOff = new Set(hits.filter((h) => !h.answered).map((h) => h.json.data.id as string))
    const hitsAtKill = hits.length
    assert.ok(cutOff.size > 0, 'killed while deliveries were in flight')

    second = await serveForCrash(db)
    const countOf = (card: string) => hits.filter((h) => h.json.data.id === card).length
    await until('every event after restart', () => new Set(hits.map((h) => h.json.data.id)).size === N)
    await until('the cut-off deliveries again, once their lease ran out', () => [...cutOff].every((card) => countOf(card) >= 2))
    const byCard = new Map<string, Set<string>>()
    for (const h of hits) {
      assert.equal(h.headers['x-webhook-delivery'], h.json.id)
      assert.ok(await verify(secret, h.body, h.headers['x-service-signature'] as string))
      ;(byCard.get(h.json.data.id) ?? byCard.set(h.json.data.id, new Set()).get(h.json.data.id)!).add(h.json.id)
    }
    assert.deepEqual([...byCard.keys()].sort(), [...cards].sort())
    for (const [card, ids] of byCard) assert.equal(ids.size, 1, `card ${card}: one delivery id across repeats`)
    assert.ok(hits.length > hitsAtKill)

    second.child.kill('SIGTERM')
    assert.equal(await second.exited, 0, 'SIGTERM shuts down cleanly')
  } finally {
    await first?.stop()
    await second?.stop()
    await receiver?.close()
    await db.drop()
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

// Webhook test fixtures: a local receiver that answers by path, a seeded app that allows loopback targets, and small helpers.
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { createHash } from 'node:crypto'
import { verify } from '@octokit/webhooks-methods'
import type { Agent } from 'undici'
import { OutboxScheduler } from '../../src/delivery/scheduler.js'
import { createDeliveryAgent, sendWebhook } from '../../src/delivery/send.js'
import type { Sender } from '../../src/delivery/send-thread.js'
import type { LookupAll } from '../../src/delivery/url-safety.js'
import { seededApp } from '../helpers/app.js'
import { assertDeliveryPayload } from '../helpers/events.js'

export interface Hit {
  method: string
  path: string
  headers: http.IncomingHttpHeaders
  body: string
  json: any
  at: number
  answered: boolean
}

export interface Receiver {
  url: string
  hits: Hit[]
  close(): Promise<void>
}

/**
 * /ok → 200 "thanks", /status/<n> → that status, /hang → never answers, /reset → drops the connection,
 * /redirect → 302 to /landed, /slow/<ms> → 200 after ms, /echo → 200 with the request's headers as JSON.
 */
export async function startReceiver(): Promise<Receiver> {
  const hits: Hit[] = []
  /** Payload checks that failed, reported by close() (throwing inside the server would only crash it). */
  const invalid: unknown[] = []
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      let json: unknown
      try {
        json = JSON.parse(body)
      } catch {
        json = undefined
      }
      try {
        assertDeliveryPayload(json)
      } catch (err) {
        invalid.push(err)
      }
      const path = req.url ?? '/'
      const hit: Hit = { method: req.method ?? '', path, headers: req.headers, body, json, at: Date.now(), answered: false }
      hits.push(hit)
      res.on('finish', () => {
        hit.answered = true
      })
      const status = /^\/status\/(\d+)/.exec(path)
      const slow = /^\/slow\/(\d+)/.exec(path)
      if (status) res.writeHead(Number(status[1])).end(`answered ${status[1]}`)
      else if (path === '/hang') return
      else if (path === '/reset') req.socket.destroy()
      else if (path === '/redirect') res.writeHead(302, { location: '/landed' }).end()
      else if (path.split('?')[0] === '/echo') res.end(JSON.stringify(req.headers))
      else if (slow) setTimeout(() => res.end('slow thanks'), Number(slow[1]))
      else res.end('thanks')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    async close() {
      server.closeAllConnections()
      await new Promise((r) => server.close(r))
      if (invalid.length > 0) throw invalid[0]
    },
  }
}

/** A seeded workspace whose webhooks may target 127.0.0.1, with a short attempt timeout and a scheduler driven by hand. */
export async function webhookApp(overrides: Record<string, unknown> = {}) {
  const s = await seededApp({ allowPrivateTargets: 'true', webhookTimeoutMs: 300, ...overrides })
  // Scheduler errors are swallowed by design (the lease retries); DEBUG_WEBHOOKS=1 shows them while debugging a test.
  const scheduler = new OutboxScheduler(s.t.deps, {
    log: (m, e) => {
      if (process.env.DEBUG_WEBHOOKS) console.error(m, e)
    },
  })
  const receiver = await startReceiver()
  const close = async () => {
    await scheduler.stop(1000)
    await receiver.close()
    await s.t.close()
  }
  return { ...s, scheduler, receiver, close }
}

export type WebhookApp = Awaited<ReturnType<typeof webhookApp>>

export async function createSub(c: WebhookApp, token: string, body: Record<string, unknown>): Promise<any> {
  const r = await c.t.req('POST', '/v1/webhooks', { token, body: { name: 'hook', events: ['card.*'], boards: [], ...body } })
  if (r.status !== 201) throw new Error(`webhook create failed: ${r.status} ${r.text}`)
  return r.body
}

export async function createCard(c: WebhookApp, token: string, title = 'Write launch post', boardId = c.board.id): Promise<any> {
  const r = await c.t.req('POST', '/v1/cards', { token, body: { board: boardId, title } })
  if (r.status !== 201) throw new Error(`card create failed: ${r.status} ${r.text}`)
  return r.body.card
}

export const outboxRows = (c: WebhookApp) => c.t.deps.db.q.selectFrom('outbox').selectAll().orderBy('created_at').orderBy('id').execute()

/** Both signatures as a receiver checks them: the independent verifier for sha256=, node:crypto for the legacy one. */
export async function signaturesValid(secret: string, hit: Hit): Promise<boolean> {
  const service = hit.headers['x-service-signature'] as string
  const legacy = createHash('sha256').update(hit.body).update(secret).digest('hex')
  return (await verify(secret, hit.body, service)) && hit.headers['x-webhook-signature'] === legacy
}

/**
 * Attempts on the test's own thread through agents with a fake resolver (a function cannot cross to the sending thread);
 * each attempt's allowPrivate picks its agent, as the sending thread's deliveryAgent does.
 */
export function senderThrough(lookup: LookupAll): Sender {
  const agents = new Map<boolean, Promise<Agent>>()
  const agentFor = (allowPrivate: boolean) =>
    agents.get(allowPrivate) ?? agents.set(allowPrivate, createDeliveryAgent({ allowPrivate, lookup })).get(allowPrivate)!
  return {
    start: () => {},
    send: async (req) => sendWebhook({ ...req, dispatcher: await agentFor(req.allowPrivate) }),
    close: async () => {
      await Promise.all([...agents.values()].map(async (a) => (await a).close()))
    },
  }
}

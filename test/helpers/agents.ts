// Agents in tests: a seeded app whose webhooks and runners may be on 127.0.0.1, a kickoff dispatcher driven by hand, a
// local receiver, a signing secret, and helpers to make agents (owned by the member, on the board, with a token).
import assert from 'node:assert/strict'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { KickoffDispatcher } from '../../src/resources/agent-kickoffs/dispatcher.js'
import { startReceiver } from '../webhooks/fixtures.js'
import { seededApp } from './app.js'
import { dbAll } from './db.js'

export const SECRET = 'runner-secret-0123456789abcdef'

export async function agentApp(overrides: Record<string, unknown> = {}) {
  // 2 s for a call to the local runner: it answers in milliseconds, also on a busy machine; a hanging runner's test waits this long.
  const s = await seededApp({ allowPrivateTargets: 'true', webhookTimeoutMs: 2000, ...overrides })
  const dispatcher = new KickoffDispatcher(s.t.deps, { log: (m, e) => process.env.DEBUG_TASKD && console.error(m, e) })
  const receiver = await startReceiver()
  const close = async () => {
    await dispatcher.stop(1000)
    await receiver.close()
    await s.t.close()
  }
  const secret = (await s.t.req('POST', '/v1/signing-secrets', { token: s.tokens.admin.write, body: { name: 'runner', value: SECRET } })).body.signing_secret
  /** An agent owned by the member, on the board, with its own write token. */
  const agent = async (name: string, profile: Record<string, unknown>, onBoard = true) => {
    const r = await s.t.req('POST', '/v1/users', { token: s.tokens.admin.full, body: { kind: 'agent', name, agent: { owner: s.member.id, ...profile } } })
    assert.equal(r.status, 201, r.text)
    const user = r.body.user as { id: string; name: string }
    if (onBoard) assert.equal((await s.t.req('POST', `/v1/boards/${s.board.id}/members`, { token: s.tokens.admin.write, body: { user: user.id } })).status, 201)
    const tok = await s.t.req('POST', '/v1/tokens', { token: s.tokens.member.write, body: { name: `${name} token`, user: user.id } })
    assert.equal(tok.status, 201, tok.text)
    return { ...user, token: tok.body.value as string }
  }
  const card = async (title = 'Write the launch post', extra: Record<string, unknown> = {}) =>
    (await s.t.req('POST', '/v1/cards', { token: s.tokens.member.write, body: { board: s.board.id, title, ...extra } })).body.card as {
      id: string
      key: string
    }
  const kickoff = async (body: Record<string, unknown>, token = s.tokens.member.write) => {
    const r = await s.t.req('POST', '/v1/agent-kickoffs', { token, body })
    assert.equal(r.status, 201, r.text)
    return r.body.kickoff
  }
  const getKickoff = async (id: string) => (await s.t.req('GET', `/v1/agent-kickoffs/${id}`, { token: s.tokens.member.read })).body.kickoff
  const getRun = async (id: string) => (await s.t.req('GET', `/v1/agent-runs/${id}`, { token: s.tokens.member.read })).body.agent_run
  const events = async (prefix: string) =>
    (await dbAll<{ name: string; data: string }>(s.t.deps.db, 'SELECT name, data FROM events WHERE name LIKE ? ORDER BY seq', `${prefix}%`)).map((e) => ({
      name: e.name,
      data: JSON.parse(e.data),
    }))
  return { ...s, dispatcher, receiver, close, secret, agent, card, kickoff, getKickoff, getRun, events }
}

/** Runs fn on a fresh agentApp, closed afterwards whatever happens. */
export async function withAgentApp(fn: (s: Awaited<ReturnType<typeof agentApp>>) => Promise<void>): Promise<void> {
  const s = await agentApp()
  try {
    await fn(s)
  } finally {
    await s.close()
  }
}

/**
 * A fake OpenAI-compatible endpoint on 127.0.0.1: records each request and answers with `reply` (a text, or made per
 * call), or with the status given.
 */
export async function fakeAi(answer: { status: number; reply?: string | ((n: number) => string) }) {
  const requests: { path: string; auth: string | undefined; body: any }[] = []
  const server = http.createServer((req, res) => {
    let body = ''
    req.on('data', (d) => (body += d))
    req.on('end', () => {
      requests.push({ path: req.url ?? '', auth: req.headers.authorization, body: JSON.parse(body) })
      const content = typeof answer.reply === 'function' ? answer.reply(requests.length) : (answer.reply ?? '')
      res.writeHead(answer.status, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content } }] }))
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    answer,
    close: () => {
      server.closeAllConnections()
      return new Promise((r) => server.close(r))
    },
  }
}

#!/usr/bin/env node
// A minimal agent runner for taskd (docs/agents.md), with no dependencies: Node 20 or later.
//
//   SIGNING_SECRET=... TASKD_URL=http://127.0.0.1:8080 TASKD_AGENT_TOKEN=... node examples/agent-runner.mjs
//
// taskd POSTs an auto_start kickoff to the agent's wake URL (here http://127.0.0.1:$PORT/). The runner checks the
// signature, answers 202 at once, and then works the run with the agent's own token: it reports `started`, asks a
// question when ASK=1 (and waits for the answer), sends a heartbeat, comments on the card and proposes it as done.
// A person then approves (the card is completed) or returns the proposal in taskd.
//
// Rotating the secret without downtime (docs/agents.md): during the overlap taskd signs `webhook-signature` with the
// new secret and the old one, so a runner that still has only the old secret keeps working; give it the new one in
// SIGNING_SECRET and the old one in SIGNING_SECRET_PREVIOUS (either is accepted), and drop SIGNING_SECRET_PREVIOUS
// once the overlap is over.
import { createHmac, timingSafeEqual } from 'node:crypto'
import http from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'

const PORT = Number(process.env.PORT ?? 8787)
const { SIGNING_SECRET, SIGNING_SECRET_PREVIOUS, TASKD_URL, TASKD_AGENT_TOKEN } = process.env
const ASK = process.env.ASK === '1'
const POLL_MS = Number(process.env.POLL_MS ?? 2000) // how often to look for an answer to the question
const MAX_AGE_SECONDS = 5 * 60 // a signed call older than this is refused (a replay)

if (!SIGNING_SECRET || !TASKD_URL || !TASKD_AGENT_TOKEN) {
  console.error('agent-runner: set SIGNING_SECRET, TASKD_URL and TASKD_AGENT_TOKEN')
  process.exit(2)
}

const log = (line) => console.log(`agent-runner: ${line}`)
/** Aborted on SIGINT/SIGTERM: stops calls to taskd and the question poll. */
const stopping = new AbortController()
/** Kickoff ids already taken: taskd may send a kickoff again (after a crash) with the same id. */
const taken = new Set()

/** The secrets a call may be signed with: the runner's, and during a rotation the one before it. */
const SECRETS = [SIGNING_SECRET, SIGNING_SECRET_PREVIOUS].filter(Boolean)

/** A timestamp header of unix seconds, not older (or newer) than MAX_AGE_SECONDS: an older call is a replay. */
const fresh = (ts) => typeof ts === 'string' && /^\d+$/.test(ts) && Math.abs(Date.now() / 1000 - Number(ts)) <= MAX_AGE_SECONDS
const sameBytes = (a, b) => a.length === b.length && timingSafeEqual(a, b)

/** The V2 signature (made with taskd's current secret): hex HMAC-SHA256 of "<timestamp>.<raw body>". */
function v2Matches(headers, raw, secret) {
  const ts = headers['x-webhook-timestamp']
  const signature = headers['x-webhook-signature-v2']
  if (!fresh(ts) || typeof signature !== 'string') return false
  return sameBytes(Buffer.from(signature, 'hex'), createHmac('sha256', secret).update(`${ts}.`).update(raw).digest())
}

/**
 * The Standard Webhooks signature: `webhook-signature` holds `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<raw body>">`
 * for each secret taskd signs with (two, space-separated, while a rotation overlaps). Any of them may match.
 */
function standardMatches(headers, raw, secret) {
  const id = headers['webhook-id']
  const ts = headers['webhook-timestamp']
  const list = headers['webhook-signature']
  if (typeof id !== 'string' || !fresh(ts) || typeof list !== 'string') return false
  const expected = createHmac('sha256', secret).update(`${id}.${ts}.`).update(raw).digest()
  return list.split(' ').some((entry) => entry.startsWith('v1,') && sameBytes(Buffer.from(entry.slice(3), 'base64'), expected))
}

/** Signed by taskd with one of our secrets, in either header, compared in constant time. */
const signedByTaskd = (headers, raw) => SECRETS.some((secret) => v2Matches(headers, raw, secret) || standardMatches(headers, raw, secret))

/** One call to taskd's API as the agent; the parsed answer, or an error naming the status. */
async function api(method, path, body) {
  const res = await fetch(new URL(path, TASKD_URL), {
    method,
    headers: { Authorization: `Bearer ${TASKD_AGENT_TOKEN}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: stopping.signal,
  })
  const text = await res.text()
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${text}`)
  return text ? JSON.parse(text) : undefined
}

const report = (run, activity) => api('POST', `/v1/agent-runs/${run}/activity`, activity)

/** Asks a question on the run (it becomes needs_input) and polls until a person answers or dismisses it. */
async function ask(run, question) {
  const asked = (await api('POST', `/v1/agent-runs/${run}/questions`, { question })).question
  log(`run ${run}: asked "${question}", waiting for an answer`)
  for (;;) {
    const { items } = await api('GET', `/v1/agent-runs/${run}/questions?per_page=100`)
    const q = items.find((i) => i.id === asked.id)
    if (q && q.status !== 'open') return q.answer // null when dismissed
    await sleep(POLL_MS, undefined, { signal: stopping.signal })
  }
}

/** The work itself: here a comment on the card; a real runner would start a coding agent, call a model, and so on. */
async function work(kickoff) {
  const { run, card } = kickoff
  await report(run, { type: 'started', message: `Picked up ${card.key}.` })
  log(`run ${run}: started on ${card.key} "${card.title}"`)
  let answer
  if (ASK) {
    answer = await ask(run, `May I start on ${card.key}? Anything I should know?`)
    log(`run ${run}: got the answer ${JSON.stringify(answer)}`)
  }
  await report(run, { type: 'heartbeat' }) // long jobs send one every few minutes (TASKD_AGENT_STALL_MINUTES)
  log(`run ${run}: heartbeat`)
  const lines = [`Done by the example runner for ${card.key}.`]
  if (kickoff.message) lines.push(`You asked: ${kickoff.message}`)
  if (answer) lines.push(`You answered: ${answer}`)
  const { comment } = await api('POST', '/v1/comments', { card: card.id, body: lines.join('\n\n') })
  log(`run ${run}: commented on ${card.key} (${comment.id})`)
  await report(run, { type: 'done_proposed', summary: `Left a comment on ${card.key}.` })
  log(`run ${run}: proposed done`)
}

/** Works a run in the background; when something goes wrong the run is reported failed (unless we are stopping). */
async function workInBackground(kickoff) {
  try {
    await work(kickoff)
  } catch (err) {
    if (stopping.signal.aborted) return log(`run ${kickoff.run}: stopped before it was done`)
    log(`run ${kickoff.run}: failed: ${err.message}`)
    await report(kickoff.run, { type: 'failed', error: String(err.message).slice(0, 2000) }).catch(() => {})
  }
}

const server = http.createServer((req, res) => {
  const chunks = []
  req.on('data', (c) => chunks.push(c))
  req.on('end', () => {
    const answer = (status, text) => res.writeHead(status, { 'Content-Type': 'text/plain' }).end(text)
    if (req.method !== 'POST') return answer(405, 'POST a kickoff here\n')
    const raw = Buffer.concat(chunks)
    if (!signedByTaskd(req.headers, raw)) {
      log('refused a call: bad or old signature (401)')
      return answer(401, 'bad signature\n')
    }
    let kickoff
    try {
      kickoff = JSON.parse(raw.toString('utf8'))
    } catch {
      return answer(400, 'not JSON\n')
    }
    const id = kickoff?.kickoff?.id
    if (typeof id !== 'string' || typeof kickoff.run !== 'string' || !kickoff.card) return answer(400, 'not a kickoff\n')
    if (taken.has(id)) {
      log(`kickoff ${id} again: already taken, not worked twice`)
      return answer(202, 'already taken\n')
    }
    taken.add(id)
    log(`kickoff ${id} for ${kickoff.agent?.name}: run ${kickoff.run} on ${kickoff.card.key}`)
    answer(202, 'accepted\n') // answer at once: taskd waits at most TASKD_WEBHOOK_TIMEOUT_MS
    void workInBackground(kickoff)
  })
})

server.listen(PORT, '127.0.0.1', () => log(`listening on http://127.0.0.1:${server.address().port}/`))

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    log(`${signal}: stopping`)
    stopping.abort()
    // Idle keep-alive connections to taskd would hold the process for seconds: exit once the server has closed.
    server.close(() => process.exit(0))
    server.closeAllConnections()
  })
}

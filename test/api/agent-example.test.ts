// The example runner of docs/agents.md (examples/agent-runner.mjs) run for real as a child process against a test app:
// taskd's dispatcher calls it, it works the run with the agent's own token (started, a comment, done proposed, and a
// question first with ASK=1), a person approves and the card is completed. A runner with another secret refuses the
// call with 401 and the kickoff stays queued. The fake clock is set to the real time: the runner checks the
// timestamp's age against its own clock.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { createHmac } from 'node:crypto'
import net, { type AddressInfo } from 'node:net'
import path from 'node:path'
import { test } from 'node:test'
import { agentApp, SECRET } from '../helpers/agents.js'
import { ROOT } from '../helpers/serve.js'
import { until } from '../helpers/until.js'

const RUNNER = path.join(ROOT, 'examples/agent-runner.mjs')

/** A port nobody listens on now (the runner's wake URL must be known before the agent is created). */
async function freePort(): Promise<number> {
  const server = net.createServer()
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const { port } = server.address() as AddressInfo
  await new Promise((r) => server.close(r))
  return port
}

/** `node examples/agent-runner.mjs` with only the given environment; resolves once it says it listens. */
async function startRunner(env: Record<string, string>) {
  const child = spawn(process.execPath, [RUNNER], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  child.stdout.on('data', (d: Buffer) => (out += d.toString()))
  child.stderr.on('data', (d: Buffer) => (out += d.toString()))
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const runner = {
    url: `http://127.0.0.1:${env.PORT}/`,
    output: () => out,
    /** Waits for a line of the runner's output. */
    printed: (re: RegExp) =>
      until(`the runner to print ${re}`, () => {
        if (re.test(out)) return true
        if (child.exitCode !== null) throw new Error(`the runner exited (${child.exitCode}): ${out}`)
      }),
    /** SIGTERM; the exit code (null when it had to be killed). */
    stop: async () => {
      if (child.exitCode !== null) return child.exitCode
      child.kill('SIGTERM')
      const kill = setTimeout(() => child.kill('SIGKILL'), 10_000)
      const code = await exited
      clearTimeout(kill)
      return code
    },
  }
  await runner.printed(/listening on/)
  return runner
}

/** An app with an auto_start agent whose wake URL is the runner's port, and the runner's environment. */
async function setUp() {
  const c = await agentApp({ webhookTimeoutMs: 5000 })
  c.t.clock.t = Date.now()
  const port = await freePort()
  const robo = await c.agent('Robo', { wake_url: `http://127.0.0.1:${port}/`, signing_secret: c.secret.id, powers: ['auto_start'] })
  const env = { PORT: String(port), SIGNING_SECRET: SECRET, TASKD_URL: c.t.url, TASKD_AGENT_TOKEN: robo.token, POLL_MS: '50' }
  const comments = async (card: string) =>
    (await c.t.req('GET', `/v1/comments?card=${card}`, { token: c.tokens.member.read })).body.items as { body: string; author: { id: string; kind: string } }[]
  const activity = async (run: string) =>
    ((await c.t.req('GET', `/v1/agent-runs/${run}/activity`, { token: c.tokens.member.read })).body.items as { type: string }[]).map((a) => a.type)
  return { c, robo, env, comments, activity }
}

/** A call signed as taskd signs it (written here from the documented scheme, not taskd's code), at `seconds`. */
const signed = (body: string, seconds: number, secret = SECRET) => {
  const ts = String(Math.floor(seconds))
  return {
    'Content-Type': 'application/json',
    'X-Webhook-Timestamp': ts,
    'X-Webhook-Signature-V2': createHmac('sha256', secret).update(`${ts}.${body}`).digest('hex'),
  }
}

test('the example runner works a kickoff: started, a comment, done proposed; a repeat is not worked twice; approving completes the card', async () => {
  const { c, robo, env, comments, activity } = await setUp()
  const runner = await startRunner(env)
  try {
    const card = await c.card('Write the launch post')
    const k = await c.kickoff({ card: card.id, agent: robo.id, message: 'Please draft it' })
    await c.dispatcher.runOnce()
    const proposed = await until('the run to be proposed done', async () => {
      const run = await c.getRun(k.run)
      return run.status === 'done_proposed' && run
    })
    assert.equal(proposed.summary, `Left a comment on ${card.key}.`)
    const [comment, ...more] = await comments(card.id)
    assert.equal(more.length, 0, 'one comment')
    assert.deepEqual([comment.author.id, comment.author.kind], [robo.id, 'agent'])
    assert.match(comment.body, /Please draft it/)
    assert.deepEqual((await activity(k.run)).sort(), ['delivered', 'done_proposed', 'started'], 'a heartbeat without a message is not recorded')
    const delivered = await c.getKickoff(k.id)
    assert.deepEqual([delivered.status, delivered.via, delivered.attempts], ['delivered', 'auto_start', 1])

    // taskd sends a kickoff again, with the same id, after a crash: the runner takes it (202) but does not work it twice.
    const again = JSON.stringify({ kickoff: { id: k.id }, run: k.run, card: { id: card.id, key: card.key } })
    const repeat = await fetch(runner.url, { method: 'POST', headers: signed(again, Date.now() / 1000), body: again })
    assert.equal(repeat.status, 202)
    await runner.printed(/already taken/)
    // A correctly signed call older than 5 minutes is a replay: 401.
    const stale = await fetch(runner.url, { method: 'POST', headers: signed(again, Date.now() / 1000 - 6 * 60), body: again })
    assert.equal(stale.status, 401)
    assert.equal((await comments(card.id)).length, 1)
    assert.equal((runner.output().match(/started on/g) ?? []).length, 1, runner.output())

    const approved = await c.t.req('POST', `/v1/agent-runs/${k.run}/approve`, { token: c.tokens.member.write })
    assert.equal(approved.status, 200, approved.text)
    assert.equal(approved.body.agent_run.status, 'completed')
    const after = await c.t.req('GET', `/v1/cards/${card.id}`, { token: c.tokens.member.read })
    assert.equal(after.body.card.completed, true)
    assert.deepEqual(
      (await c.events('agent.')).map((e) => e.name).filter((n) => n !== 'agent.kickoff_delivered'),
      ['agent.done_proposed', 'agent.approved', 'agent.completed'],
    )
    assert.equal(await runner.stop(), 0, `SIGTERM stops it cleanly: ${runner.output()}`)
  } finally {
    await runner.stop()
    await c.close()
  }
})

test('with ASK=1 the runner asks first, waits for the answer, then comments with it and proposes done', async () => {
  const { c, robo, env, comments } = await setUp()
  const runner = await startRunner({ ...env, ASK: '1' })
  try {
    const card = await c.card()
    const k = await c.kickoff({ card: card.id, agent: robo.id })
    await c.dispatcher.runOnce()
    const question = await until('the question', async () => {
      const items = (await c.t.req('GET', `/v1/agent-runs/${k.run}/questions`, { token: c.tokens.member.read })).body.items
      return items.length > 0 && items[0]
    })
    assert.deepEqual([question.status, question.asked_by.id], ['open', robo.id])
    assert.equal((await c.getRun(k.run)).status, 'needs_input')
    await runner.printed(/waiting for an answer/)
    assert.equal((await comments(card.id)).length, 0, 'nothing is done before the answer')
    const answered = await c.t.req('POST', `/v1/agent-runs/${k.run}/questions/${question.id}/answer`, {
      token: c.tokens.member.write,
      body: { answer: 'Keep it short.' },
    })
    assert.equal(answered.status, 200, answered.text)
    await until('the run to be proposed done', async () => (await c.getRun(k.run)).status === 'done_proposed')
    const [comment] = await comments(card.id)
    assert.match(comment.body, /You answered: Keep it short\./)
  } finally {
    await runner.stop()
    await c.close()
  }
})

test('a runner with another signing secret answers 401: the kickoff stays queued with the 401 in last_error, the run pending', async () => {
  const { c, robo, env, comments } = await setUp()
  const runner = await startRunner({ ...env, SIGNING_SECRET: 'a-different-secret-0123456789' })
  try {
    const card = await c.card()
    const k = await c.kickoff({ card: card.id, agent: robo.id })
    await c.dispatcher.runOnce()
    const after = await c.getKickoff(k.id)
    assert.deepEqual([after.status, after.attempts, after.via], ['queued', 1, null])
    assert.match(after.last_error, /401/)
    await runner.printed(/refused a call: bad or old signature \(401\)/)
    assert.equal((await c.getRun(k.run)).status, 'pending')
    assert.equal((await comments(card.id)).length, 0)
  } finally {
    await runner.stop()
    await c.close()
  }
})

/** A call signed only in the Standard Webhooks headers: `v1,<base64 HMAC-SHA256 of "<id>.<ts>.<body>">` per secret. */
const standardSigned = (body: string, seconds: number, secrets: string[], id = 'msg_1') => {
  const ts = String(Math.floor(seconds))
  const sign = (secret: string) => 'v1,' + createHmac('sha256', secret).update(`${id}.${ts}.${body}`).digest('base64')
  return { 'Content-Type': 'application/json', 'webhook-id': id, 'webhook-timestamp': ts, 'webhook-signature': secrets.map(sign).join(' ') }
}

test('during a secret rotation the runner accepts either secret: the old one alone (through webhook-signature), or SIGNING_SECRET_PREVIOUS beside the new one', async () => {
  const { c, robo, env } = await setUp()
  const NEW = 'rotated-runner-secret-0123456789'
  const OTHER = 'neither-secret-0123456789-abcdef'
  // The runner still has only the old secret when taskd rotates (the new value is the operator's own).
  const old = await startRunner(env)
  let both: Awaited<ReturnType<typeof startRunner>> | undefined
  try {
    const rotated = await c.t.req('POST', `/v1/signing-secrets/${c.secret.id}/rotate`, { token: c.tokens.admin.write, body: { value: NEW, overlap_hours: 24 } })
    assert.equal(rotated.status, 200, rotated.text)
    const card = await c.card('Rotate the key')
    const k = await c.kickoff({ card: card.id, agent: robo.id })
    await c.dispatcher.runOnce()
    assert.deepEqual(
      [(await c.getKickoff(k.id)).status, (await c.getKickoff(k.id)).via],
      ['delivered', 'auto_start'],
      'taskd’s call verified with the old secret',
    )
    await until('the run to be proposed done', async () => (await c.getRun(k.run)).status === 'done_proposed')
    // The checks themselves, on a body that is no kickoff: 400 means the signature was accepted, 401 that it was not.
    const body = '{}'
    const now = Date.now() / 1000
    const answers = async (url: string, headers: Record<string, string>) => (await fetch(url, { method: 'POST', headers, body })).status
    assert.equal(await answers(old.url, signed(body, now, NEW)), 401, 'V2 is made with the new secret, which this runner does not have yet')
    assert.equal(await answers(old.url, standardSigned(body, now, [NEW, SECRET])), 400, 'webhook-signature also carries the old one')
    assert.equal(await answers(old.url, standardSigned(body, now, [NEW])), 401)
    assert.equal(await answers(old.url, standardSigned(body, now - 6 * 60, [NEW, SECRET])), 401, 'too old: a replay')

    // The runner given the new secret, with the old one as SIGNING_SECRET_PREVIOUS: either is accepted, in either header.
    both = await startRunner({ ...env, PORT: String(await freePort()), SIGNING_SECRET: NEW, SIGNING_SECRET_PREVIOUS: SECRET })
    for (const secret of [NEW, SECRET]) {
      assert.equal(await answers(both.url, signed(body, now, secret)), 400, `V2 with ${secret}`)
      assert.equal(await answers(both.url, standardSigned(body, now, [secret])), 400, `webhook-signature with ${secret}`)
    }
    assert.equal(await answers(both.url, signed(body, now, OTHER)), 401)
    assert.equal(await answers(both.url, standardSigned(body, now, [OTHER])), 401)
    assert.equal(await answers(both.url, { 'Content-Type': 'application/json' }), 401, 'unsigned')
  } finally {
    await old.stop()
    await both?.stop()
    await c.close()
  }
})

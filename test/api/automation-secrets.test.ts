// A secret an http_request step sends never reaches a run log, whatever encoding the receiver echoes it in, and what
// the steps sent and got back is shown only to those who may manage the automation.
import assert from 'node:assert/strict'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { test } from 'node:test'
import { AutomationRunner } from '../../src/resources/automations/runner.js'
import { seededApp } from '../helpers/app.js'

/** Every character as \uXXXX (`upper` hex digits or not), or only those that are not letters or digits. */
const uEscape = (s: string, all: boolean, upper = false) =>
  [...s]
    .map((c) => {
      if (!all && /[A-Za-z0-9]/.test(c)) return c
      const hex = c.charCodeAt(0).toString(16).padStart(4, '0')
      return `\\u${upper ? hex.toUpperCase() : hex}`
    })
    .join('')
const percentAll = (s: string) => [...Buffer.from(s)].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('')

/** What the receiver echoes for each path: the Authorization header it got, encoded, as a JSON string's raw text. */
const ENCODINGS: Record<string, (v: string) => string> = {
  plain: (v) => JSON.stringify(v).slice(1, -1),
  'json-escaped': (v) => uEscape(v, false),
  'json-every-char': (v) => uEscape(v, true, true),
  'json-twice': (v) => JSON.stringify(JSON.stringify({ auth: v }).replace(/[<>&]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)).slice(1, -1),
  base64: (v) => Buffer.from(v).toString('base64'),
  'base64-offset-1': (v) => Buffer.from(`x${v}`).toString('base64'),
  'base64-offset-2': (v) => Buffer.from(`{"a":"${v}"}`).toString('base64'),
  base64url: (v) => Buffer.from(`auth=${v}`).toString('base64url'),
  'base64-json-slashes': (v) => Buffer.from(`zz${v}`).toString('base64').replaceAll('/', '\\/'),
  percent: (v) => encodeURIComponent(v),
  'percent-every-byte': (v) => percentAll(v),
  form: (v) => new URLSearchParams({ auth: v }).toString(),
  hex: (v) => Buffer.from(v).toString('hex'),
  'hex-upper': (v) => `0x${Buffer.from(v).toString('hex').toUpperCase()}`,
  html: (v) => v.replace(/[<>&"]/g, (c) => `&#${c.charCodeAt(0)};`),
}

async function echoReceiver() {
  const server = http.createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      const name = (req.url ?? '').slice(1)
      const encode = Object.hasOwn(ENCODINGS, name) ? ENCODINGS[name] : undefined
      const auth = String(req.headers.authorization ?? '')
      res.setHeader('content-type', 'application/json')
      res.setHeader('x-echo', encode ? Buffer.from(auth).toString('base64') : '')
      res.end(`{"note":"you sent","echo":"${encode ? encode(auth) : ''}"}`)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections()
      await new Promise((r) => server.close(r))
    },
  }
}

test("an admin's secret echoed by a receiver in any common encoding never reaches a run log; step outputs are shown only to those who may manage the automation", async () => {
  const s = await seededApp({ allowPrivateTargets: 'true' })
  const runner = new AutomationRunner(s.t.deps, { log: (m, e) => process.env.DEBUG_TASKD && console.error(m, e) })
  const receiver = await echoReceiver()
  try {
    const admin = s.tokens.admin.write
    const SECRET = 'k<ey>&"s3cr3t" /+=_0123456789abcdef'
    const secret = (await s.t.req('POST', '/v1/signing-secrets', { token: admin, body: { name: 'partner api', value: SECRET } })).body.signing_secret
    const ep = (await s.t.req('POST', '/v1/webhooks/incoming', { token: admin, body: { name: 'Intake' } })).body.incoming_webhook
    const names = Object.keys(ENCODINGS)
    const made = await s.t.req('POST', '/v1/automations', {
      token: admin,
      body: {
        name: 'call the partner',
        board: s.board.id,
        trigger: { type: 'incoming_webhook', endpoint: ep.id },
        steps: names.map((name) => ({
          type: 'http_request',
          method: 'POST',
          url: `${receiver.url}/${name}`,
          headers: { Authorization: `Bearer {secret.${secret.id}}` },
        })),
      },
    })
    assert.equal(made.status, 201, made.text)
    const a = made.body.automation
    const fired = await fetch(ep.url.replace('http://taskd.test', s.t.url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
    assert.equal(fired.status, 202)
    await runner.runOnce()

    // Every spelling of the secret a reader might decode, to look for in what the API answers.
    const spellings = [SECRET, `Bearer ${SECRET}`].flatMap((v) => [
      v,
      ...Object.values(ENCODINGS).map((encode) => encode(v)),
      JSON.stringify(v).slice(1, -1),
      Buffer.from(v).toString('base64').slice(4, -4),
      Buffer.from(v).toString('base64url').slice(4, -4),
    ])
    const leaks = (text: string) => spellings.filter((x) => text.includes(x) || JSON.stringify(JSON.parse(text)).includes(x))
    const read = async (token: string) => {
      const one = await s.t.req('GET', `/v1/automations/${a.id}/runs`, { token })
      assert.equal(one.status, 200, one.text)
      const [run] = one.body.items
      const single = await s.t.req('GET', `/v1/automations/runs/${run.id}`, { token })
      assert.deepEqual(single.body.run, run)
      assert.deepEqual(leaks(one.text), [], 'no spelling of the secret in the list')
      assert.deepEqual(leaks(single.text), [], 'nor in the run')
      return run
    }

    // The admin (who may manage it) sees each step's output, with the echo taken out in every encoding.
    const full = await read(admin)
    assert.equal(full.status, 'succeeded', JSON.stringify(full))
    assert.equal(full.details_hidden, undefined)
    for (const [i, name] of names.entries()) {
      const output = full.steps[i].output
      assert.equal(output.status, 200, name)
      assert.equal(output.body.note, 'you sent', `${name}: the rest of the answer is kept`)
      assert.match(output.body.echo, /\[redacted\]/, `${name}: ${output.body.echo}`)
      assert.match(output.headers['x-echo'], /\[redacted\]/, `${name}: headers too`)
    }

    // A read-only member sees that the run and its steps succeeded, not what they sent and got back.
    for (const token of [s.tokens.member.read, s.tokens.admin.read]) {
      const bare = await read(token)
      assert.equal(bare.status, 'succeeded')
      assert.equal(bare.details_hidden, true)
      assert.deepEqual(
        bare.steps.map((st: { status: string; output: unknown; error: unknown }) => [st.status, st.output, st.error]),
        names.map(() => ['succeeded', null, null]),
      )
    }
    // A member with a write token manages the board's automations, but not steps that use signing secrets: hidden too.
    assert.equal((await read(s.tokens.member.write)).details_hidden, true)

    // Without secrets in its steps, a member who may manage the automation sees the outputs.
    const plain = await s.t.req('POST', '/v1/automations', {
      token: s.tokens.member.write,
      body: {
        name: 'ping',
        board: s.board.id,
        trigger: { type: 'incoming_webhook', endpoint: ep.id },
        steps: [{ type: 'http_request', method: 'POST', url: `${receiver.url}/plain` }],
      },
    })
    assert.equal(plain.status, 201, plain.text)
    await fetch(ep.url.replace('http://taskd.test', s.t.url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
    await runner.runOnce()
    const runs = async (token: string) => (await s.t.req('GET', `/v1/automations/${plain.body.automation.id}/runs`, { token })).body.items[0]
    assert.equal((await runs(s.tokens.member.write)).steps[0].output.body.note, 'you sent')
    assert.equal((await runs(s.tokens.member.read)).steps[0].output, null)
  } finally {
    await runner.stop(1000)
    await receiver.close()
    await s.t.close()
  }
})

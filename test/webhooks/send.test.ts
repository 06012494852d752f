// Tests one delivery attempt against real local receivers, the SSRF guard at connect time, and the signatures receivers check.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { createHash, createHmac } from 'node:crypto'
import { sign, verify } from '@octokit/webhooks-methods'
import { closeDeliveryAgents, createDeliveryAgent, sendWebhook, type SendRequest } from '../../src/delivery/send.js'
import { generateSecret, legacySignature, serviceSignature, signedCallHeaders, timingSafeEqualStr } from '../../src/delivery/signing.js'

type Seen = { method: string; url: string; headers: http.IncomingHttpHeaders; body: string }

let main: http.Server
let target: http.Server
let base = ''
let targetHits = 0
let targetPort = 0
const seen: Seen[] = []

function listen(handler: http.RequestListener): Promise<http.Server> {
  const server = http.createServer(handler)
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)))
}

before(async () => {
  target = await listen((_req, res) => {
    targetHits++
    res.end('target')
  })
  targetPort = (target.address() as AddressInfo).port
  main = await listen((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') })
      switch (req.url) {
        case '/ok':
          res.end('thanks')
          break
        case '/bad':
          res.writeHead(400).end('bad payload')
          break
        case '/boom':
          res.writeHead(500).end('exploded')
          break
        case '/redirect':
          res.writeHead(302, { location: `http://127.0.0.1:${targetPort}/landed` }).end()
          break
        case '/hang':
          break // never answers
        case '/reset':
          req.socket.destroy()
          break
        case '/long':
          res.end('é'.repeat(3000))
          break // 2-byte characters: the 1024-byte cut lands mid-character
        default:
          res.writeHead(404).end()
      }
    })
  })
  base = `http://127.0.0.1:${(main.address() as AddressInfo).port}`
})

after(async () => {
  await closeDeliveryAgents()
  for (const s of [main, target]) {
    s.closeAllConnections()
    await new Promise((r) => s.close(r))
  }
})

const BODY = JSON.stringify({ id: 'dlv_1', event: 'card.created', timestamp: '2025-01-01T00:00:00.000Z', data: { title: 'Ünïcode ✓' } })

function send(path: string, extra: Partial<SendRequest> = {}) {
  return sendWebhook({
    url: base + path,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: BODY,
    timeoutMs: 2000,
    allowPrivate: true,
    ...extra,
  })
}

test('2xx is ok, with status, excerpt and duration; method, headers and body arrive intact', async () => {
  const r = await send('/ok', { method: 'PATCH', headers: { 'content-type': 'application/json', 'x-webhook-event': 'card.created' } })
  assert.equal(r.statusCode, 200)
  assert.equal(r.outcome, 'ok')
  assert.equal(r.responseExcerpt, 'thanks')
  assert.equal(r.error, undefined)
  assert.ok(r.durationMs >= 0)
  const got = seen.at(-1)!
  assert.equal(got.method, 'PATCH')
  assert.equal(got.headers['x-webhook-event'], 'card.created')
  assert.equal(got.body, BODY)
})

test('4xx is client_error and 5xx is server_error', async () => {
  assert.deepEqual((({ statusCode, outcome, responseExcerpt }) => ({ statusCode, outcome, responseExcerpt }))(await send('/bad')), {
    statusCode: 400,
    outcome: 'client_error',
    responseExcerpt: 'bad payload',
  })
  const boom = await send('/boom')
  assert.equal(boom.statusCode, 500)
  assert.equal(boom.outcome, 'server_error')
})

test('a redirect is reported, never followed', async () => {
  const before = targetHits
  const r = await send('/redirect')
  assert.equal(r.statusCode, 302)
  assert.equal(r.outcome, 'redirect')
  assert.equal(targetHits, before, 'the redirect target received nothing')
})

test('a receiver that hangs past the timeout gives outcome timeout', async () => {
  const r = await send('/hang', { timeoutMs: 200 })
  assert.equal(r.outcome, 'timeout')
  assert.equal(r.statusCode, null)
  assert.match(String(r.error), /timed out after 200 ms/)
  // Only a lower bound: a busy machine makes an attempt longer, never shorter than the timeout it waited for.
  assert.ok(r.durationMs >= 150, `took ${r.durationMs} ms`)
})

test('a connection reset is a network_error', async () => {
  const r = await send('/reset')
  assert.equal(r.outcome, 'network_error')
  assert.equal(r.statusCode, null)
  assert.ok(r.error && r.error.length > 0)
})

test('only the first 1024 bytes of a long answer are kept, without a broken character', async () => {
  const r = await send('/long')
  assert.equal(r.outcome, 'ok')
  assert.ok(Buffer.byteLength(r.responseExcerpt) <= 1024)
  assert.equal(r.responseExcerpt, 'é'.repeat(512))
})

test('a syntactically bad URL is refused without a request', async () => {
  const r = await sendWebhook({ url: 'ftp://example.com/', method: 'POST', headers: {}, body: '{}', timeoutMs: 500, allowPrivate: true })
  assert.equal(r.outcome, 'refused_target')
  assert.equal(r.error, 'URL must start with http:// or https://')
})

test('with private targets not allowed, loopback literals and localhost are refused at connect', async () => {
  const count = seen.length
  for (const url of [`${base}/ok`, base.replace('127.0.0.1', '[::ffff:127.0.0.1]') + '/ok', base.replace('127.0.0.1', 'localhost') + '/ok']) {
    const r = await sendWebhook({ url, method: 'POST', headers: {}, body: '{}', timeoutMs: 2000, allowPrivate: false })
    assert.equal(r.outcome, 'refused_target', url)
    assert.equal(r.statusCode, null)
    assert.match(String(r.error), /private or reserved address|internal host name/)
  }
  assert.equal(seen.length, count, 'the receiver got nothing')
})

test('a public-looking name whose lookup answers 127.0.0.1 is refused at connect (pinned lookup)', async () => {
  const port = (main.address() as AddressInfo).port
  const rebinding = async () => [{ address: '127.0.0.1', family: 4 }]
  const guarded = await createDeliveryAgent({ allowPrivate: false, lookup: rebinding })
  const count = seen.length
  const r = await sendWebhook({
    url: `http://hooks.example.com:${port}/ok`,
    method: 'POST',
    headers: {},
    body: '{}',
    timeoutMs: 2000,
    allowPrivate: false,
    dispatcher: guarded,
  })
  assert.equal(r.outcome, 'refused_target')
  assert.equal(r.error, 'hooks.example.com resolves to 127.0.0.1, a private or reserved address')
  assert.equal(seen.length, count)
  await guarded.close()

  // Control: the same resolver with private targets allowed connects to exactly the address it returned.
  const open = await createDeliveryAgent({ allowPrivate: true, lookup: rebinding })
  const ok = await sendWebhook({
    url: `http://hooks.example.com:${port}/ok`,
    method: 'POST',
    headers: {},
    body: '{}',
    timeoutMs: 2000,
    allowPrivate: true,
    dispatcher: open,
  })
  assert.equal(ok.outcome, 'ok')
  assert.equal(seen.at(-1)!.headers.host, `hooks.example.com:${port}`)
  await open.close()
})

test('X-Service-Signature verifies with an independent verifier on the raw bytes received', async () => {
  const secret = generateSecret()
  await send('/ok', { headers: { 'content-type': 'application/json', 'x-service-signature': serviceSignature(secret, BODY) } })
  const got = seen.at(-1)!
  assert.equal(await verify(secret, got.body, String(got.headers['x-service-signature'])), true)
  assert.equal(await verify(secret, got.body + ' ', String(got.headers['x-service-signature'])), false)
  assert.equal(await verify('other-secret', got.body, String(got.headers['x-service-signature'])), false)
  assert.equal(serviceSignature(secret, Buffer.from(BODY)), serviceSignature(secret, BODY))
})

test('legacy signature is sha256(body + secret)', () => {
  const secret = 'legacy-secret'
  assert.equal(
    legacySignature(secret, BODY),
    createHash('sha256')
      .update(BODY + secret, 'utf8')
      .digest('hex'),
  )
})

test('signed-call headers: HMAC of "<ts>.<body>", and the Standard Webhooks headers with the previous secret too', async () => {
  const secret = 'runner-secret'
  const h = signedCallHeaders({ current: secret }, 'k1', BODY, 1_700_000_000.9)
  assert.equal(h['X-Webhook-Timestamp'], '1700000000')
  assert.equal(h['X-Webhook-Signature-V2'], createHmac('sha256', secret).update(`1700000000.${BODY}`).digest('hex'))
  assert.equal('sha256=' + h['X-Webhook-Signature-V2'], await sign(secret, `1700000000.${BODY}`))
  const std = (key: string) => 'v1,' + createHmac('sha256', key).update(`k1.1700000000.${BODY}`).digest('base64')
  assert.deepEqual([h['webhook-id'], h['webhook-timestamp'], h['webhook-signature']], ['k1', '1700000000', std(secret)])
  const rotating = signedCallHeaders({ current: secret, previous: 'old-secret' }, 'k1', BODY, 1_700_000_000)
  assert.equal(rotating['webhook-signature'], `${std(secret)} ${std('old-secret')}`, 'new first, then old, space-separated')
  assert.equal(rotating['X-Webhook-Signature-V2'], h['X-Webhook-Signature-V2'], 'V2 is made with the new secret only')
})

test('generateSecret and timingSafeEqualStr', () => {
  const a = generateSecret()
  assert.match(a, /^whsec_[A-Za-z0-9_-]{43}$/)
  assert.notEqual(a, generateSecret())
  assert.equal(timingSafeEqualStr(a, a.slice()), true)
  assert.equal(timingSafeEqualStr(a, a + 'x'), false)
  assert.equal(timingSafeEqualStr('abc', 'abd'), false)
  assert.equal(timingSafeEqualStr('', ''), true)
})

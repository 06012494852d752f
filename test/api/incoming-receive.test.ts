// The receiving side of incoming webhooks, /v1/hooks/<path>, with a real HTTP client against a real server: every
// outcome, the size limits while streaming, the rate limit by the injected clock, and the log.
import assert from 'node:assert/strict'
import crypto from 'node:crypto'
import http from 'node:http'
import { test } from 'node:test'
import { seededApp } from '../helpers/app.js'
import { dbAll } from '../helpers/db.js'
import { AutomationRunner } from '../../src/resources/automations/runner.js'

type Fixture = Awaited<ReturnType<typeof seededApp>>
const MB = 1_048_576

interface Sent {
  status: number
  headers: http.IncomingHttpHeaders
  body: any
}

/** One request with node:http (so Content-Length, chunking and the sender's address are ours to choose). */
function send(
  base: string,
  path: string,
  opts: { method?: string; headers?: Record<string, string | number>; body?: string | Buffer; localAddress?: string } = {},
): Promise<Sent> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${base}${path}`,
      { method: opts.method ?? 'POST', headers: opts.headers, localAddress: opts.localAddress, agent: false },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8')
          resolve({ status: res.statusCode!, headers: res.headers, body: text ? JSON.parse(text) : undefined })
        })
      },
    )
    req.on('error', (err) =>
      reject(new Error(`${opts.method ?? 'POST'} ${path} (${opts.headers?.['content-length'] ?? 'no declared length'}): ${err.message}`)),
    )
    req.end(opts.body)
  })
}

const json = (value: unknown) => ({ headers: { 'content-type': 'application/json' }, body: JSON.stringify(value) })

async function endpoint(c: Fixture, body: Record<string, unknown>) {
  const r = await c.t.req('POST', '/v1/webhooks/incoming', { token: c.tokens.owner.write, body })
  assert.equal(r.status, 201, r.text)
  const hook = r.body.incoming_webhook as { id: string; url: string }
  return { id: hook.id, path: new URL(hook.url).pathname }
}

const logs = async (c: Fixture, id: string) => (await c.t.req('GET', `/v1/webhooks/incoming/${id}/logs`, { token: c.tokens.owner.read })).body.items

test('accepted bodies (JSON, form, none) answer 202 and are logged with only the kept headers; the rest is refused with its outcome', async () => {
  const c = await seededApp()
  try {
    const { id, path } = await endpoint(c, { name: 'Form', methods: ['POST', 'PUT'] })
    const accepted = await send(c.t.url, `${path}?source=ci&tag=a`, {
      headers: { 'content-type': 'application/json', 'x-request-id': 'r-1', 'user-agent': 'ci/1', cookie: 'session=secret', 'x-other': 'dropped' },
      body: JSON.stringify({ title: 'From CI' }),
    })
    assert.equal(accepted.status, 202)
    assert.equal(accepted.body.accepted, true)
    const [entry] = await logs(c, id)
    assert.equal(entry.id, accepted.body.request_id)
    assert.deepEqual(
      [entry.outcome, entry.status, entry.method, entry.ip, entry.body, entry.query, entry.files, entry.runs],
      ['accepted', 202, 'POST', '127.0.0.1', '{"title":"From CI"}', { source: 'ci', tag: 'a' }, [], []],
    )
    assert.deepEqual(entry.headers, { 'content-type': 'application/json', 'user-agent': 'ci/1', 'x-request-id': 'r-1' })
    assert.equal((await send(c.t.url, path, { method: 'PUT', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=1&b=2' })).status, 202)
    assert.equal((await send(c.t.url, path)).status, 202, 'no body at all')
    // The answer carries the error code of its status; the log names the outcome.
    const refused: [string, Parameters<typeof send>[2], number, string, string][] = [
      ['GET', { method: 'GET' }, 405, 'method_not_allowed', 'method_not_allowed'],
      ['text', { headers: { 'content-type': 'text/plain' }, body: 'hello' }, 415, 'unsupported_media_type', 'unsupported_body'],
      ['bad JSON', { headers: { 'content-type': 'application/json' }, body: '{"title":' }, 415, 'unsupported_media_type', 'unsupported_body'],
      ['files', { headers: { 'content-type': 'multipart/form-data; boundary=x' }, body: '--x\r\n\r\n--x--' }, 422, 'validation_failed', 'files_refused'],
    ]
    for (const [what, opts, status, code, outcome] of refused) {
      const r = await send(c.t.url, path, opts)
      assert.equal(r.status, status, what)
      assert.equal(r.body.error.code, code, what)
      assert.equal((await logs(c, id))[0].outcome, outcome, `${what} is logged`)
    }
    // A NUL byte in a body is accepted and logged (shown as U+FFFD, which both databases can hold).
    const nul = await send(c.t.url, path, { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: Buffer.from('a=1\u0000b') })
    assert.equal(nul.status, 202)
    assert.equal((await logs(c, id))[0].body, 'a=1\uFFFDb')
    const notAllowed = await send(c.t.url, path, { method: 'DELETE' })
    assert.equal(notAllowed.headers.allow, 'POST, PUT')
    // Paused: 503, logged.
    await c.t.req('PATCH', `/v1/webhooks/incoming/${id}`, { token: c.tokens.owner.write, body: { paused: true } })
    assert.equal((await send(c.t.url, path, json({}))).status, 503)
    assert.equal((await logs(c, id))[0].outcome, 'paused')
    // Unknown and regenerated-away paths: 404, logged against nothing.
    await c.t.req('PATCH', `/v1/webhooks/incoming/${id}`, { token: c.tokens.owner.write, body: { paused: false } })
    const before = (await dbAll(c.t.deps.db, 'SELECT id FROM incoming_requests')).length
    assert.equal((await send(c.t.url, '/v1/hooks/notapath', json({}))).status, 404)
    const renewed = (await c.t.req('POST', `/v1/webhooks/incoming/${id}/regenerate`, { token: c.tokens.owner.write })).body.incoming_webhook
    assert.equal((await send(c.t.url, path, json({}))).status, 404, 'the old path is dead at once')
    assert.equal((await dbAll(c.t.deps.db, 'SELECT id FROM incoming_requests')).length, before)
    assert.equal((await send(c.t.url, new URL(renewed.url).pathname, json({}))).status, 202)
  } finally {
    await c.t.close()
  }
})

test('header and basic authentication: missing or wrong is 401 (logged), right is 202; credentials never reach the log', async () => {
  const c = await seededApp()
  try {
    const key = 'k-0123456789abcdef-secret'
    const header = await endpoint(c, { name: 'Key', auth: { type: 'header', header_name: 'X-Api-Key', header_value: key } })
    assert.equal((await send(c.t.url, header.path, json({}))).status, 401)
    assert.equal((await send(c.t.url, header.path, { ...json({}), headers: { 'content-type': 'application/json', 'x-api-key': `${key}x` } })).status, 401)
    assert.equal((await send(c.t.url, header.path, { ...json({}), headers: { 'content-type': 'application/json', 'x-api-key': key } })).status, 202)
    assert.deepEqual(
      (await logs(c, header.id)).map((l: { outcome: string }) => l.outcome),
      ['accepted', 'auth_failed', 'auth_failed'],
    )
    const basic = await endpoint(c, { name: 'Basic', auth: { type: 'basic', username: 'ci', password: 'pa55-word-xyz' } })
    const as = (user: string, password: string) => ({
      ...json({}),
      headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` },
    })
    const wrong = await send(c.t.url, basic.path, as('ci', 'nope'))
    assert.equal(wrong.status, 401)
    assert.equal(wrong.body.error.code, 'unauthorized')
    assert.match(String(wrong.headers['www-authenticate']), /^Basic/)
    assert.equal((await send(c.t.url, basic.path, as('other', 'pa55-word-xyz'))).status, 401)
    assert.equal((await send(c.t.url, basic.path, as('ci', 'pa55-word-xyz'))).status, 202)
    const everything = JSON.stringify(await dbAll(c.t.deps.db, 'SELECT * FROM incoming_requests'))
    for (const secret of [key, 'pa55-word-xyz', Buffer.from('ci:pa55-word-xyz').toString('base64')]) assert.ok(!everything.includes(secret))
  } finally {
    await c.t.close()
  }
})

test('sizes: 1 MB passes and one byte more is 413; a declared size past the limit is refused unread; a chunked stream is cut off', async () => {
  const c = await seededApp()
  try {
    const { id, path } = await endpoint(c, { name: 'Sizes' })
    // A JSON string of exactly the limit, and one byte more.
    const exact = `"${'a'.repeat(MB - 2)}"`
    assert.equal(Buffer.byteLength(exact), MB)
    assert.equal((await send(c.t.url, path, { headers: { 'content-type': 'application/json' }, body: exact })).status, 202)
    const over = await send(c.t.url, path, { headers: { 'content-type': 'application/json' }, body: `"${'a'.repeat(MB - 1)}"` })
    assert.equal(over.status, 413)
    assert.equal(over.body.error.code, 'payload_too_large')
    // A Content-Length that claims 2 GB with a tiny body: refused at once, not waited for.
    const lying = await send(c.t.url, path, { headers: { 'content-type': 'application/json', 'content-length': 2 * 1024 * MB }, body: undefined })
    assert.equal(lying.status, 413)
    // A chunked upload with no length that would go on for 2 GB: cut off after about the limit, never buffered whole.
    // The client either reads the 413 or, still writing when the connection goes, meets the cut (EPIPE or a reset):
    // both are the server refusing; the log says which outcome it recorded.
    const result = await new Promise<{ status: number | 'cut'; sent: number }>((resolve) => {
      let sent = 0
      let done = false
      const finish = (status: number | 'cut') => {
        if (done) return
        done = true
        resolve({ status, sent })
        req.destroy()
      }
      const req = http.request(`${c.t.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, agent: false }, (res) => {
        res.resume()
        finish(res.statusCode!)
      })
      req.on('error', () => finish('cut'))
      const chunk = Buffer.alloc(64 * 1024, 'a')
      const pump = () => {
        while (!done && sent < 2 * 1024 * MB) {
          sent += chunk.length
          if (!req.write(chunk)) return void req.once('drain', pump)
        }
      }
      pump()
    })
    assert.ok(result.status === 413 || result.status === 'cut', `the chunked upload got ${result.status}`)
    assert.ok(result.sent < 64 * MB, `${result.sent} bytes went out before the answer`)
    // The refusal is logged before the answer goes out, so it is there once the client has seen either.
    assert.deepEqual(
      (await logs(c, id)).map((l: { outcome: string }) => l.outcome),
      ['too_large', 'too_large', 'too_large', 'accepted'],
    )
    assert.equal((await logs(c, id))[0].body, '', 'nothing of a refused body is kept')
  } finally {
    await c.t.close()
  }
})

test('rate limit: 120 a minute per endpoint and sender, the 121st is 429 with Retry-After, the window slides, another sender is unaffected', async () => {
  const c = await seededApp()
  try {
    const { id, path } = await endpoint(c, { name: 'Busy' })
    for (let i = 0; i < 120; i++) {
      assert.equal((await send(c.t.url, path, json({ i }))).status, 202, `request ${i + 1}`)
      if (i === 59) c.t.clock.advance(30_000) // half of them 30 s later
    }
    const limited = await send(c.t.url, path, json({ i: 121 }))
    assert.equal(limited.status, 429)
    assert.equal(limited.headers['retry-after'], '30')
    assert.equal((await logs(c, id))[0].outcome, 'rate_limited')
    // Another sender (another loopback source address, still to 127.0.0.1) has its own window.
    assert.equal((await send(c.t.url, path, { ...json({}), localAddress: '127.0.0.2' })).status, 202)
    assert.equal((await logs(c, id))[0].ip, '127.0.0.2')
    // 30 s on, the first 60 have left the window: 60 more fit, not 61.
    c.t.clock.advance(30_000)
    for (let i = 0; i < 60; i++) assert.equal((await send(c.t.url, path, json({ i }))).status, 202)
    assert.equal((await send(c.t.url, path, json({}))).status, 429)
    // The log keeps the newest 100.
    assert.equal((await logs(c, id)).length, 100)
    const stored = (await dbAll(c.t.deps.db, 'SELECT id FROM incoming_requests WHERE endpoint_id = ?', id)).length
    assert.ok(stored >= 100 && stored < 120, `${stored} rows stored: cut back to 100 every 20 requests`)
  } finally {
    await c.t.close()
  }
})

test('trigger: fires the endpoint as the caller (owners and admins any, members on a board it allows), logged like the URL', async () => {
  const c = await seededApp()
  try {
    const open = await endpoint(c, { name: 'Open', auth: { type: 'header', header_name: 'X-Key', header_value: 'never-needed-here-1234' } })
    const trigger = (id: string, token: string, body: unknown = { title: 'From n8n' }) =>
      c.t.req('POST', `/v1/webhooks/incoming/${id}/trigger`, { token, body })
    const fired = await trigger(open.id, c.tokens.member.write)
    assert.equal(fired.status, 202, fired.text)
    assert.equal(fired.body.accepted, true)
    const [entry] = await logs(c, open.id)
    assert.deepEqual([entry.id, entry.outcome, entry.method, entry.body], [fired.body.request_id, 'accepted', 'POST', '{"title":"From n8n"}'])
    assert.equal((await trigger(open.id, c.tokens.outsider.write)).status, 403, 'a member of no board')
    assert.equal((await trigger(open.id, c.tokens.member.read)).status, 403, 'a read token')
    assert.equal((await trigger('nope', c.tokens.owner.write)).status, 404)
    const other = (await c.t.req('POST', '/v1/boards', { token: c.tokens.outsider.write, body: { name: 'Other' } })).body.board.id
    const narrow = await endpoint(c, { name: 'Narrow', boards: [other] })
    assert.equal((await trigger(narrow.id, c.tokens.member.write)).status, 403, 'not on a board it allows')
    assert.equal((await trigger(narrow.id, c.tokens.outsider.write)).status, 202, 'on the board it allows')
    assert.equal((await trigger(narrow.id, c.tokens.admin.write)).status, 202, 'admins: any endpoint')
    await c.t.req('PATCH', `/v1/webhooks/incoming/${narrow.id}`, { token: c.tokens.owner.write, body: { paused: true } })
    const paused = await trigger(narrow.id, c.tokens.owner.write)
    assert.equal(paused.status, 503)
    assert.equal(paused.body.error.code, 'paused')
    assert.equal((await logs(c, narrow.id))[0].outcome, 'paused')
    const invalid = await c.t.req('POST', `/v1/webhooks/incoming/${open.id}/trigger`, {
      token: c.tokens.owner.write,
      raw: '[1,2]',
      headers: { 'content-type': 'application/json' },
    })
    assert.equal(invalid.status, 422, 'the body is a JSON object of fields')
  } finally {
    await c.t.close()
  }
})

test('files: multipart to an endpoint that takes them keeps every part with a filename (not its bytes in the log); too many is 422', async () => {
  const c = await seededApp()
  try {
    const { id, path } = await endpoint(c, { name: 'Uploads', accept_files: true, max_files: 2 })
    const boundary = 'taskd-test-boundary'
    const multipart = (parts: { field: string; filename?: string; type?: string; data: string | Buffer }[]) => ({
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: Buffer.concat([
        ...parts.flatMap((p) => [
          Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="${p.field}"${p.filename ? `; filename="${p.filename}"` : ''}\r\n` +
              (p.type ? `Content-Type: ${p.type}\r\n` : '') +
              '\r\n',
          ),
          Buffer.from(p.data),
          Buffer.from('\r\n'),
        ]),
        Buffer.from(`--${boundary}--\r\n`),
      ]),
    })
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3, 255])
    // No automation listens yet: the request is accepted and logged with its files' names and sizes, but their bytes
    // are not kept.
    const unheard = await send(c.t.url, path, multipart([{ field: 'scan', filename: 'unheard.png', type: 'image/png', data: png }]))
    assert.equal(unheard.status, 202, JSON.stringify(unheard.body))
    assert.deepEqual((await logs(c, id))[0].files, [{ name: 'unheard.png', size: png.length, type: 'image/png' }])
    assert.deepEqual(await dbAll(c.t.deps.db, 'SELECT name FROM files'), [], 'no automation listens: no file kept')
    const listener = await c.t.req('POST', '/v1/automations', {
      token: c.tokens.owner.write,
      body: {
        name: 'files',
        board: c.board.id,
        trigger: { type: 'incoming_webhook', endpoint: id },
        steps: [{ type: 'create_card', title: '{webhook.files}' }],
      },
    })
    assert.equal(listener.status, 201, listener.text)
    const ok = await send(
      c.t.url,
      path,
      multipart([
        { field: 'title', data: 'Invoice 42' },
        { field: 'scan', filename: 'scan.png', type: 'image/png', data: png },
        { field: 'title2', filename: 'notes.txt', type: 'text/plain', data: 'a file under any field name' },
      ]),
    )
    assert.equal(ok.status, 202, JSON.stringify(ok.body))
    const [entry] = await logs(c, id)
    assert.equal(entry.body, '{"title":"Invoice 42"}')
    assert.deepEqual(entry.files, [
      { name: 'scan.png', size: png.length, type: 'image/png' },
      { name: 'notes.txt', size: 27, type: 'text/plain' },
    ])
    // Kept in the one file store, chunked, complete, with their sha256.
    const kept = await dbAll<{ name: string; data: Buffer; sha256: string; complete: number }>(
      c.t.deps.db,
      'SELECT f.name, c.data, f.sha256, f.complete FROM files f JOIN file_chunks c ON c.file_id = f.id WHERE f.request_id = ? ORDER BY f.name, c.seq',
      entry.id,
    )
    for (const f of kept) {
      assert.equal(f.complete, 1)
      assert.equal(f.sha256, crypto.createHash('sha256').update(f.data).digest('hex'))
    }
    assert.deepEqual(
      kept.map((f) => [f.name, Buffer.from(f.data).toString('hex')]),
      [
        ['notes.txt', Buffer.from('a file under any field name').toString('hex')],
        ['scan.png', png.toString('hex')],
      ],
    )
    assert.ok(!JSON.stringify(entry).includes('a file under any field name'), 'no file bytes in the log')
    const three = await send(c.t.url, path, multipart([1, 2, 3].map((n) => ({ field: `f${n}`, filename: `${n}.txt`, data: 'x' }))))
    assert.equal(three.status, 422)
    assert.equal(three.body.error.code, 'validation_failed')
    const broken = await send(c.t.url, path, { headers: { 'content-type': 'multipart/form-data' }, body: 'no boundary' })
    assert.equal(broken.status, 415)
    const huge = await send(c.t.url, path, { headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': 26_214_401 } })
    assert.equal(huge.status, 413, 'past 25 MB')
    assert.deepEqual(
      (await logs(c, id)).map((l: { outcome: string }) => l.outcome),
      ['too_large', 'unsupported_body', 'files_refused', 'accepted', 'accepted'],
    )
  } finally {
    await c.t.close()
  }
})

test('kept files have a cap per endpoint (TASKD_INCOMING_FILES_KEPT_BYTES): the oldest go, and on SQLite their space is reused', async () => {
  const FILE = 64 * 1024
  const c = await seededApp({ incomingFilesKeptBytes: String(3 * FILE) })
  const runner = new AutomationRunner(c.t.deps, { log: () => {} })
  try {
    const { id, path } = await endpoint(c, { name: 'Scans', accept_files: true })
    // A comment step: a create_card step would copy each file onto its card, and the files' bytes would stay there.
    const card = (await c.t.req('POST', '/v1/cards', { token: c.tokens.owner.write, body: { board: c.board.id, title: 'Scans' } })).body.card
    const listener = await c.t.req('POST', '/v1/automations', {
      token: c.tokens.owner.write,
      body: {
        name: 'scans',
        board: c.board.id,
        trigger: { type: 'incoming_webhook', endpoint: id },
        steps: [{ type: 'add_comment', card: card.id, body: 'got {webhook.files}' }],
      },
    })
    assert.equal(listener.status, 201, listener.text)
    const boundary = 'cap-boundary'
    const upload = (name: string) =>
      send(c.t.url, path, {
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
        body: Buffer.concat([
          Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="f"; filename="${name}"\r\n\r\n`),
          Buffer.alloc(FILE, name),
          Buffer.from(`\r\n--${boundary}--\r\n`),
        ]),
      })
    const kept = async () =>
      (await dbAll<{ name: string }>(c.t.deps.db, 'SELECT name FROM files WHERE request_id IS NOT NULL ORDER BY name')).map((f) => f.name)
    const sqlite = c.t.deps.db.dialect === 'sqlite'
    const fileBytes = async () =>
      Number((await dbAll<{ n: number }>(c.t.deps.db, 'SELECT page_count * page_size AS n FROM pragma_page_count(), pragma_page_size()'))[0].n)
    let sizeAfterCap = 0
    for (let i = 1; i <= 24; i++) {
      const sent = await upload(`f${String(i).padStart(2, '0')}`)
      assert.equal(sent.status, 202, JSON.stringify(sent.body))
      // The run finishes, so its request's files may go (the files of a request whose runs are still queued stay).
      await runner.runOnce()
      if (i === 4) assert.deepEqual(await kept(), ['f02', 'f03', 'f04'], 'the oldest file went')
      if (i === 6 && sqlite) sizeAfterCap = await fileBytes()
    }
    assert.deepEqual(await kept(), ['f22', 'f23', 'f24'])
    if (sqlite) {
      // 18 more files went through: the database grew by far less than one of them each, its freed pages reused.
      const grown = (await fileBytes()) - sizeAfterCap
      assert.ok(grown < 4 * FILE, `the database grew by ${grown} bytes after the cap was reached`)
    }
    // The log still names every file.
    assert.equal((await logs(c, id)).filter((l: { files: unknown[] }) => l.files.length === 1).length, 24)
  } finally {
    await runner.stop(1000)
    await c.t.close()
  }
})

test('behind a trusted proxy (TASKD_TRUST_PROXY) the sender comes from X-Forwarded-For, read from the right; otherwise the header is ignored', async () => {
  const proxied = await seededApp({ trustProxy: 'loopback' })
  let direct: Fixture | undefined
  try {
    const forwarded = (chain: string) => ({ ...json({}), headers: { 'content-type': 'application/json', 'x-forwarded-for': chain } })
    const hook = await endpoint(proxied, { name: 'Behind nginx' })
    assert.equal((await send(proxied.t.url, hook.path, forwarded('198.51.100.9, 203.0.113.7, 127.0.0.1'))).status, 202)
    assert.equal((await logs(proxied, hook.id))[0].ip, '203.0.113.7', 'the last address no trusted proxy added')
    // Each forwarded sender has its own window: one at the limit leaves another untouched.
    for (let i = 0; i < 119; i++) assert.equal((await send(proxied.t.url, hook.path, forwarded('203.0.113.7'))).status, 202)
    assert.equal((await send(proxied.t.url, hook.path, forwarded('203.0.113.7'))).status, 429)
    assert.equal((await send(proxied.t.url, hook.path, forwarded('203.0.113.8'))).status, 202)
    assert.equal((await send(proxied.t.url, hook.path, forwarded('not-an-address'))).status, 202, 'garbage: the proxy itself is the sender')
    assert.equal((await logs(proxied, hook.id))[0].ip, '127.0.0.1')
    // Without the setting a client cannot pick its own sender address.
    direct = await seededApp()
    const plain = await endpoint(direct, { name: 'Direct' })
    assert.equal((await send(direct.t.url, plain.path, forwarded('203.0.113.7'))).status, 202)
    assert.equal((await logs(direct, plain.id))[0].ip, '127.0.0.1')
  } finally {
    await proxied.t.close()
    await direct?.t.close()
  }
})

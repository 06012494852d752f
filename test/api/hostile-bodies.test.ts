// Bodies that end too early, are cut off by the client or do not parse, sent over raw sockets to a real `taskd serve`
// through every route that reads a body: each incoming endpoint content type (JSON, urlencoded, multipart with files,
// none), the trigger route, /mcp and every JSON route of the API. Each gets an answer in the error shape (or, when the
// client went away, none), never a 500 or a dead process, and the server answers /v1/users/me after them all.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'
import { openDatabase } from '../../src/db/open.js'
import { freshDatabase, type TestDatabase } from '../helpers/database.js'
import { dbGet } from '../helpers/db.js'
import { until } from '../helpers/until.js'
import { serve, type Served } from '../helpers/serve.js'

interface Sent {
  /** The status line's code, or null when the connection closed without an answer. */
  status: number | null
  body: string
}

/** One request over a raw socket to 127.0.0.1: the head, then the body; 'end' half-closes after it, 'destroy' resets. */
function rawRequest(port: number, head: string, body: Buffer | string, after: 'wait' | 'end' | 'destroy'): Promise<Sent> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1')
    const chunks: Buffer[] = []
    let done = false
    const finish = () => {
      if (done) return
      done = true
      socket.destroy()
      const text = Buffer.concat(chunks).toString('utf8')
      const status = /^HTTP\/1\.1 (\d{3})/.exec(text)
      resolve({ status: status ? Number(status[1]) : null, body: text.slice(text.indexOf('\r\n\r\n') + 4) })
    }
    socket.on('data', (c: Buffer) => chunks.push(c))
    socket.on('error', finish)
    socket.on('close', finish)
    socket.on('connect', () => {
      socket.write(head)
      socket.write(body, () => {
        if (after === 'end') socket.end()
        else if (after === 'destroy') finish()
      })
    })
  })
}

const headOf = (method: string, p: string, headers: Record<string, string | number>) =>
  `${method} ${p} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`

const BOUNDARY = 'xXhostileXx'
const multipartStart = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="note"\r\n\r\nhello\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="upload"; filename="a.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`

test('truncated, aborted and malformed bodies on every route that reads one get an answer, never a 500 or a dead server', { timeout: 300_000 }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-hostile-'))
  let database: TestDatabase | undefined
  let server: Served | undefined
  try {
    database = await freshDatabase(dir)
    server = await serve(database.db, database.env)
    const { url, token } = server
    const port = Number(new URL(url).port)
    const api = async (method: string, p: string, body?: unknown) => {
      const res = await fetch(url + p, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
      return (await res.json()) as Record<string, any>
    }
    const board = (await api('POST', '/v1/boards', { name: 'Hostile' })).board
    const files = (await api('POST', '/v1/webhooks/incoming', { name: 'Files', accept_files: true, max_files: 3 })).incoming_webhook
    const plain = (await api('POST', '/v1/webhooks/incoming', { name: 'Plain' })).incoming_webhook
    // An automation listens to the files endpoint, so its files are read and kept, not only counted.
    await api('POST', '/v1/automations', {
      name: 'keep',
      board: board.id,
      trigger: { type: 'incoming_webhook', endpoint: files.id },
      steps: [{ type: 'create_card', title: 'got {webhook.files}' }],
    })
    const hookPath = (ep: { url: string }) => new URL(ep.url).pathname
    const auth = { Authorization: `Bearer ${token}` }

    const seen: string[] = []
    /** Sends one hostile request; a closed connection with no answer is only acceptable when the client cut it. */
    const send = async (
      name: string,
      method: string,
      p: string,
      headers: Record<string, string | number>,
      body: string | Buffer,
      after: 'wait' | 'end' | 'destroy',
      expect: number[],
    ) => {
      if (process.env.DEBUG_HOSTILE) console.error(name)
      const sent = await rawRequest(port, headOf(method, p, headers), body, after)
      seen.push(`${name}: ${sent.status}`)
      if (after === 'destroy') return
      if (sent.status !== null) {
        assert.ok(expect.includes(sent.status), `${name}: answered ${sent.status} ${sent.body}`)
        if (sent.status >= 400) assert.match(sent.body, /"error":\{"code":"[a-z_]+"/, `${name}: the error shape`)
      } else assert.equal(after, 'end', `${name}: the connection closed without an answer`)
      assert.equal(server!.child.exitCode, null, `${name}: the server is still running`)
    }

    // Incoming endpoints, each content type: malformed, structurally cut short, cut off by a half-close, and reset.
    const multipartCut = multipartStart + 'x'.repeat(5000) // ends inside the file part: no closing boundary
    const multipartBad = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="upload"; filename="a.bin"\r\n` + 'garbage without a blank line'
    const bodies: [string, string, string, string][] = [
      ['json', 'application/json', '{"title": "x", "more": [1, 2', '{"title": }'],
      ['urlencoded', 'application/x-www-form-urlencoded', 'a=1&b=%ZZ&c', 'a=%E0%A4%A'],
      ['multipart', `multipart/form-data; boundary=${BOUNDARY}`, multipartCut, multipartBad],
      ['multipart without boundary', 'multipart/form-data', multipartCut, multipartBad],
      ['text', 'text/plain', 'hello', '\u0000\u0001'],
    ]
    for (const ep of [files, plain]) {
      const p = hookPath(ep)
      for (const [kind, type, cut, bad] of bodies) {
        const label = `${ep.name} ${kind}`
        await send(`${label} cut short`, 'POST', p, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(cut) }, cut, 'wait', [202, 400, 413, 415, 422])
        await send(`${label} malformed`, 'POST', p, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(bad) }, bad, 'wait', [202, 400, 413, 415, 422])
        await send(`${label} half-closed`, 'POST', p, { 'Content-Type': type, 'Content-Length': 100_000 }, cut, 'end', [400, 413, 415, 422])
        await send(`${label} reset`, 'POST', p, { 'Content-Type': type, 'Content-Length': 100_000 }, cut, 'destroy', [])
        await send(`${label} bad chunking`, 'POST', p, { 'Content-Type': type, 'Transfer-Encoding': 'chunked' }, `5\r\nab`, 'end', [400, 413, 415, 422])
      }
    }
    // A multipart body cut inside a file part by a reset, with the part already streaming (the original crash).
    const big = multipartStart + 'y'.repeat(200_000)
    await send(
      'files multipart reset mid-file',
      'POST',
      hookPath(files),
      { 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`, 'Content-Length': 400_000 },
      big,
      'destroy',
      [],
    )
    await send(
      'files multipart half-closed mid-file',
      'POST',
      hookPath(files),
      { 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`, 'Content-Length': 400_000 },
      big,
      'end',
      [400],
    )

    // The JSON routes: the trigger route, /mcp, and every route of the API that takes a body.
    const doc = (await (await fetch(`${url}/v1/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { requestBody?: { content: Record<string, unknown> } }>>
    }
    const routes: [string, string][] = [['post', '/mcp']]
    for (const [p, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        // Public addresses answer an unknown path 404 before they read a body: they are sent to a real one below (incoming
        // endpoints, public forms and git hooks, which answer by their own rules).
        if (op.requestBody?.content['application/json'] && !p.startsWith('/v1/hooks/') && !p.startsWith('/v1/forms/public/') && !p.endsWith('/hooks'))
          routes.push([method, p.replace(/\{[^}]+\}/g, 'nosuchid')])
      }
    }
    assert.ok(routes.length > 40, `${routes.length} routes with a JSON body`)
    for (const [method, p] of routes) {
      const m = method.toUpperCase()
      const json = { ...auth, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }
      await send(`${m} ${p} cut short`, m, p, { ...json, 'Content-Length': 8 }, '{"name":', 'wait', [400])
      await send(`${m} ${p} malformed`, m, p, { ...json, 'Content-Length': 11 }, '{"name": x}', 'wait', [400])
      await send(`${m} ${p} half-closed`, m, p, { ...json, 'Content-Length': 1000 }, '{"name":"x"', 'end', [400])
      await send(`${m} ${p} reset`, m, p, { ...json, 'Content-Length': 1000 }, '{"name":"x"', 'destroy', [])
    }

    // A public form's address (JSON, and multipart with its file streamed into the file store): six requests, within the
    // form's 10 a minute from one sender.
    await api('POST', '/v1/forms', {
      board: board.id,
      name: 'Hostile form',
      fields: [
        { key: 'name', label: 'Name', type: 'text' },
        { key: 'upload', label: 'Upload', type: 'file' },
      ],
    })
    const formPath = '/v1/forms/public/hostile-form'
    const formJson = { 'Content-Type': 'application/json' }
    await send('form cut short', 'POST', formPath, { ...formJson, 'Content-Length': 8 }, '{"name":', 'wait', [400])
    await send('form malformed', 'POST', formPath, { ...formJson, 'Content-Length': 11 }, '{"name": x}', 'wait', [400])
    await send('form half-closed', 'POST', formPath, { ...formJson, 'Content-Length': 1000 }, '{"name":"x"', 'end', [400])
    await send('form reset', 'POST', formPath, { ...formJson, 'Content-Length': 1000 }, '{"name":"x"', 'destroy', [])
    const formMultipart = { 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}` }
    const formCut = multipartStart.replace('name="note"', 'name="name"') + 'f'.repeat(300_000)
    await send('form multipart cut short', 'POST', formPath, { ...formMultipart, 'Content-Length': Buffer.byteLength(formCut) }, formCut, 'wait', [400])
    await send('form multipart reset mid-file', 'POST', formPath, { ...formMultipart, 'Content-Length': 600_000 }, formCut, 'destroy', [])
    // A git connection's hook URL: cut short, malformed, half-closed or reset, unsigned or not, never a 500.
    const git = (await api('POST', '/v1/git/connections', { provider: 'github', name: 'Hostile' })).git_connection
    const gitHook = new URL(git.hook_url).pathname
    const gh = { 'Content-Type': 'application/json', 'X-GitHub-Event': 'push', 'X-Hub-Signature-256': `sha256=${'0'.repeat(64)}` }
    await send('git hook cut short', 'POST', gitHook, { ...gh, 'Content-Length': 7 }, '{"ref":', 'wait', [401])
    await send('git hook malformed', 'POST', gitHook, { ...gh, 'Content-Length': 10 }, '{"ref": x}', 'wait', [401])
    await send('git hook half-closed', 'POST', gitHook, { ...gh, 'Content-Length': 1000 }, '{"ref":"x"', 'end', [400, 401])
    await send('git hook reset', 'POST', gitHook, { ...gh, 'Content-Length': 1000 }, '{"ref":"x"', 'destroy', [])
    await send('git hook bad chunking', 'POST', gitHook, { ...gh, 'Transfer-Encoding': 'chunked' }, `5\r\nab`, 'end', [400, 401])

    // POST /v1/files (multipart, streamed into the file store): cut inside the file part, malformed, half-closed, reset,
    // badly chunked and without a boundary; none leaves a file behind.
    const card = (await api('POST', '/v1/cards', { board: board.id, title: 'Files' })).card
    const uploadStart = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="card"\r\n\r\n${card.id}\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`
    const uploadCut = uploadStart + 'z'.repeat(300_000)
    const uploadBad = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="card"\r\n` + 'garbage without a blank line'
    const form = { ...auth, 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}` }
    await send('upload cut short', 'POST', '/v1/files', { ...form, 'Content-Length': Buffer.byteLength(uploadCut) }, uploadCut, 'wait', [400])
    await send('upload malformed', 'POST', '/v1/files', { ...form, 'Content-Length': Buffer.byteLength(uploadBad) }, uploadBad, 'wait', [400, 422])
    await send('upload half-closed', 'POST', '/v1/files', { ...form, 'Content-Length': 600_000 }, uploadCut, 'end', [400])
    await send('upload reset', 'POST', '/v1/files', { ...form, 'Content-Length': 600_000 }, uploadCut, 'destroy', [])
    await send('upload bad chunking', 'POST', '/v1/files', { ...form, 'Transfer-Encoding': 'chunked' }, `5\r\nab`, 'end', [400])
    await send('upload without boundary', 'POST', '/v1/files', { ...auth, 'Content-Type': 'multipart/form-data', 'Content-Length': 5 }, 'hello', 'wait', [400])
    assert.equal((await api('GET', `/v1/files?card=${card.id}`)).totalItems, 0, 'no upload left a file')
    // Nor a row that is not complete, or a chunk: a cut upload's leftovers are deleted once the server sees the cut.
    const db = await openDatabase({ ...database, readWorkers: 0 })
    try {
      const leftovers = async () =>
        Number(
          (await dbGet<{ n: number }>(
            db,
            // A form's file has no owner until its card takes it.
            'SELECT (SELECT COUNT(*) FROM files WHERE card_id = ? OR (card_id IS NULL AND note_id IS NULL AND request_id IS NULL)) + (SELECT COUNT(*) FROM file_chunks) AS n',
            card.id,
          ))!.n,
        )
      await until('the cut uploads are cleaned up', async () => (await leftovers()) === 0)
    } finally {
      await db.close()
    }

    // Still alive, and still answering.
    const me = await fetch(`${url}/v1/users/me`, { headers: auth })
    assert.equal(me.status, 200)
    assert.equal(server.child.exitCode, null)
    const log = (await api('GET', `/v1/webhooks/incoming/${files.id}/logs`)).items as { outcome: string }[]
    assert.ok(log.length >= 10, `the files endpoint logged its requests: ${log.length}`)
    assert.doesNotMatch(server.errors(), /uncaught|Unexpected end of form/i)
    console.log(`${seen.length} hostile requests sent; the server answered them all and still serves`)
  } finally {
    await server?.stop()
    await database?.drop()
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

// Files through HTTP: multipart uploads to cards and notes streamed into the chunked store, the list, get and delete
// with the board's rights, downloads with ETag, Range, the safe headers and the inline types, bodies that are too
// large, truncated, malformed or cut off by the client leaving nothing behind, a file across several chunks, a card
// deleted for good and a note deleted taking their files, and cards carrying `files` (and the filter on them).
// Every sha256 is checked here with node:crypto, independently of the server.
import assert from 'node:assert/strict'
import crypto from 'node:crypto'
import http from 'node:http'
import { test } from 'node:test'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { seededApp } from '../helpers/app.js'
import { dbAll, dbGet } from '../helpers/db.js'
import { runScenarios } from '../helpers/scenarios.js'
import { until } from '../helpers/until.js'

const BOUNDARY = 'filesTestBoundary'
const sha256 = (data: Buffer | string) => crypto.createHash('sha256').update(data).digest('hex')

interface Part {
  field: string
  value?: string
  filename?: string
  type?: string
  data?: Buffer | string
}

/** A multipart/form-data body of these parts, in order. */
function multipart(parts: Part[], boundary = BOUNDARY): Buffer {
  return Buffer.concat([
    ...parts.flatMap((p) => [
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${p.field}"${p.filename !== undefined ? `; filename="${p.filename}"` : ''}\r\n` +
          (p.type ? `Content-Type: ${p.type}\r\n` : '') +
          '\r\n',
      ),
      Buffer.from(p.data ?? p.value ?? ''),
      Buffer.from('\r\n'),
    ]),
    Buffer.from(`--${boundary}--\r\n`),
  ])
}
const formHeaders = { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` }
/** The raw form of a scenario (ASCII parts only: t.req sends a string). */
const form = (parts: Part[]) => multipart(parts).toString('latin1')

type S = Awaited<ReturnType<typeof seededApp>>

/** POST /v1/files with a Buffer body, answering status and JSON. */
async function upload(s: S, token: string, body: Buffer, headers: Record<string, string> = formHeaders) {
  const res = await fetch(`${s.t.url}/v1/files`, { method: 'POST', headers: { authorization: `Bearer ${token}`, ...headers }, body: new Uint8Array(body) })
  const text = await res.text()
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers }
}

async function download(s: S, token: string, id: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${s.t.url}/v1/files/${id}/content`, { headers: { authorization: `Bearer ${token}`, ...headers } })
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) }
}

const TEXT = 'hello, files: a small text attachment'
const HTML = '<html><script>alert(1)</script></html>'

async function fixture() {
  const s = await seededApp()
  const { t, tokens } = s
  const other = (await t.req('POST', '/v1/boards', { token: tokens.outsider.write, body: { name: 'Other', key_prefix: 'OTH' } })).body.board
  const card = (await t.req('POST', '/v1/cards', { token: tokens.member.write, body: { board: s.board.id, title: 'With files' } })).body.card
  const note = (await t.req('POST', '/v1/notes', { token: tokens.member.write, body: { title: 'Notes', body: 'x', board: s.board.id } })).body.note
  const elsewhere = (await t.req('POST', '/v1/cards', { token: tokens.outsider.write, body: { board: other.id, title: 'Theirs' } })).body.card
  const add = async (parts: Part[]) => {
    const r = await upload(s, tokens.member.write, multipart(parts))
    assert.equal(r.status, 201, JSON.stringify(r.body))
    return r.body.file
  }
  const text = await add([
    { field: 'card', value: card.id },
    { field: 'file', filename: 'readme.txt', type: 'text/plain', data: TEXT },
  ])
  const html = await add([
    { field: 'card', value: card.id },
    { field: 'file', filename: 'page.html', type: 'text/html', data: HTML },
  ])
  const png = await add([
    { field: 'note', value: note.id },
    { field: 'file', filename: 'dot.png', type: 'image/png', data: Buffer.from([0x89, 0x50, 0x4e, 0x47]) },
  ])
  return { ...s, other, card, note, elsewhere, text, html, png }
}
type C = Awaited<ReturnType<typeof fixture>>

const cardFile = (c: C, data = 'new bytes', name = 'new.txt') =>
  form([
    { field: 'card', value: c.card.id },
    { field: 'file', filename: name, type: 'text/plain', data },
  ])
const countFiles = async (c: C) => Number((await dbGet<{ n: number }>(c.t.deps.db, 'SELECT count(*) AS n FROM files'))!.n)
const countChunks = async (c: C) => Number((await dbGet<{ n: number }>(c.t.deps.db, 'SELECT count(*) AS n FROM file_chunks'))!.n)
/** Nothing but the fixture's three files (and their three chunks) is stored. */
const nothingLeft = async (c: C) => {
  assert.equal(await countFiles(c), 3, 'no file row left behind')
  assert.equal(await countChunks(c), 3, 'no chunk left behind')
}

runScenarios<C>('files', fixture, [
  {
    name: 'a member uploads a file to a card: its record, a sha256 that node:crypto agrees with, and no event',
    method: 'POST',
    path: '/v1/files',
    token: (c) => c.tokens.member.write,
    headers: formHeaders,
    raw: (c) => cardFile(c),
    status: 201,
    events: [],
    expect: (c: C) => ({
      file: { name: 'new.txt', size: 9, content_type: 'text/plain', sha256: sha256('new bytes'), card: c.card.id, note: null, created_by: { id: c.member.id } },
    }),
    after: async (c, reply) => {
      const got = await download(c, c.tokens.member.read, reply.body.file.id)
      assert.equal(got.bytes.toString(), 'new bytes')
      assert.equal(sha256(got.bytes), reply.body.file.sha256)
    },
  },
  {
    name: 'a file on a note; the name keeps only its last path segment, the type only its essence',
    method: 'POST',
    path: '/v1/files',
    token: (c) => c.tokens.member.write,
    headers: formHeaders,
    raw: (c) =>
      form([
        { field: 'note', value: c.note.id },
        { field: 'file', filename: '../../etc/passwd', type: 'Text/Plain; charset=utf-8', data: 'root' },
      ]),
    status: 201,
    expect: (c: C) => ({ file: { name: 'passwd', card: null, note: c.note.id, content_type: 'text/plain' } }),
  },
  { name: 'a read token cannot upload', method: 'POST', path: '/v1/files', token: (c) => c.tokens.member.read, headers: formHeaders, raw: 'x', status: 403 },
  {
    name: "another board's member gets 404 for the card, and nothing is stored",
    method: 'POST',
    path: '/v1/files',
    token: (c) => c.tokens.outsider.write,
    headers: formHeaders,
    raw: (c) => cardFile(c),
    status: 404,
    after: nothingLeft,
  },
  {
    name: 'no card or note before the file: 422 naming card',
    method: 'POST',
    path: '/v1/files',
    token: (c) => c.tokens.member.write,
    headers: formHeaders,
    raw: form([{ field: 'file', filename: 'a.txt', data: 'a' }]),
    status: 422,
    field: 'card',
    after: nothingLeft,
  },
  {
    name: 'both a card and a note: 422 naming note',
    method: 'POST',
    path: '/v1/files',
    token: (c) => c.tokens.member.write,
    headers: formHeaders,
    raw: (c) =>
      form([
        { field: 'card', value: c.card.id },
        { field: 'note', value: c.note.id },
        { field: 'file', filename: 'a.txt', data: 'a' },
      ]),
    status: 422,
    field: 'note',
  },
  {
    name: 'no file part: 422 naming file',
    method: 'POST',
    path: '/v1/files',
    token: (c) => c.tokens.member.write,
    headers: formHeaders,
    raw: (c) => form([{ field: 'card', value: c.card.id }]),
    status: 422,
    field: 'file',
  },
  {
    name: 'two file parts: 400, and neither stays',
    method: 'POST',
    path: '/v1/files',
    token: (c) => c.tokens.member.write,
    headers: formHeaders,
    raw: (c) =>
      form([
        { field: 'card', value: c.card.id },
        { field: 'file', filename: 'a.txt', data: 'a' },
        { field: 'file', filename: 'b.txt', data: 'b' },
      ]),
    status: 400,
    after: nothingLeft,
  },
  {
    name: 'a body that ends inside the file part: 400, nothing stored',
    method: 'POST',
    path: '/v1/files',
    token: (c) => c.tokens.member.write,
    headers: formHeaders,
    raw: (c) => cardFile(c, 'x'.repeat(10_000)).split(`\r\n--${BOUNDARY}--`)[0],
    status: 400,
    after: nothingLeft,
  },
  {
    name: 'multipart without a boundary: 400',
    method: 'POST',
    path: '/v1/files',
    token: (c) => c.tokens.member.write,
    headers: { 'content-type': 'multipart/form-data' },
    raw: 'x',
    status: 400,
  },
  {
    name: 'JSON is not an upload: 415',
    method: 'POST',
    path: '/v1/files',
    token: (c) => c.tokens.member.write,
    body: (c: C) => ({ card: c.card.id }),
    status: 415,
  },
  {
    name: "a card's files, oldest first",
    method: 'GET',
    path: (c) => `/v1/files?card=${c.card.id}`,
    token: (c) => c.tokens.member.read,
    status: 200,
    expect: (c: C) => ({
      totalItems: 2,
      items: [
        { id: c.text.id, name: 'readme.txt' },
        { id: c.html.id, name: 'page.html' },
      ],
    }),
  },
  {
    name: 'filter, sort and expand',
    method: 'GET',
    path: (c) => `/v1/files?card=${c.card.id}&filter=${encodeURIComponent('name ~ "read"')}&sort=-size&expand=card`,
    token: (c) => c.tokens.member.read,
    status: 200,
    expect: (c: C) => ({ totalItems: 1, items: [{ id: c.text.id, expand: { card: { id: c.card.id, files: [c.text.id, c.html.id] } } }] }),
  },
  {
    name: "a note's files",
    method: 'GET',
    path: (c) => `/v1/files?note=${c.note.id}`,
    token: (c) => c.tokens.member.read,
    status: 200,
    expect: (c: C) => ({ totalItems: 1, items: [{ id: c.png.id, note: c.note.id }] }),
  },
  {
    name: 'without card or note: every file the caller sees',
    method: 'GET',
    path: '/v1/files?sort=name',
    token: (c) => c.tokens.member.read,
    status: 200,
    expect: { totalItems: 3, items: [{ name: 'dot.png' }, { name: 'page.html' }, { name: 'readme.txt' }] },
  },
  {
    name: "another board's member lists nothing of this board",
    method: 'GET',
    path: '/v1/files',
    token: (c) => c.tokens.outsider.read,
    status: 200,
    expect: { totalItems: 0, items: [] },
  },
  {
    name: "another board's member asking for the card's files: 404",
    method: 'GET',
    path: (c) => `/v1/files?card=${c.card.id}`,
    token: (c) => c.tokens.outsider.read,
    status: 404,
  },
  {
    name: 'get one, with its note expanded',
    method: 'GET',
    path: (c) => `/v1/files/${c.png.id}?expand=note`,
    token: (c) => c.tokens.member.read,
    status: 200,
    expect: (c: C) => ({ file: { id: c.png.id, sha256: sha256(Buffer.from([0x89, 0x50, 0x4e, 0x47])), expand: { note: { id: c.note.id } } } }),
  },
  { name: "another board's member: 404", method: 'GET', path: (c) => `/v1/files/${c.text.id}`, token: (c) => c.tokens.outsider.read, status: 404 },
  { name: 'an unknown id: 404', method: 'GET', path: '/v1/files/nosuch', token: (c) => c.tokens.member.read, status: 404 },
  { name: 'a read token cannot delete', method: 'DELETE', path: (c) => `/v1/files/${c.text.id}`, token: (c) => c.tokens.member.read, status: 403 },
  { name: "another board's member cannot delete", method: 'DELETE', path: (c) => `/v1/files/${c.text.id}`, token: (c) => c.tokens.outsider.write, status: 404 },
  {
    name: 'a member deletes a file: its chunks go, the card no longer names it',
    method: 'DELETE',
    path: (c) => `/v1/files/${c.text.id}`,
    token: (c) => c.tokens.member.write,
    status: 204,
    events: [],
    after: async (c) => {
      assert.equal((await c.t.req('GET', `/v1/files/${c.text.id}`, { token: c.tokens.member.read })).status, 404)
      assert.equal(await countChunks(c), 2)
      assert.deepEqual((await c.t.req('GET', `/v1/cards/${c.card.id}`, { token: c.tokens.member.read })).body.card.files, [c.html.id])
    },
  },
  {
    name: 'cards carry files, and the filter `files ~ id` finds the card',
    method: 'GET',
    path: (c) => `/v1/cards?board=${c.board.id}&filter=${encodeURIComponent(`files ~ "${c.html.id}"`)}`,
    token: (c) => c.tokens.member.read,
    status: 200,
    expect: (c: C) => ({ totalItems: 1, items: [{ id: c.card.id, files: [c.text.id, c.html.id] }] }),
  },
])

test('downloads: ETag and 304, one Range (206, across chunks, suffix, open-ended) or 416, the safe headers, inline only for the safe types', async () => {
  const c = await fixture()
  try {
    const tok = c.tokens.member.read
    // 2.5 MB across three chunks of the store, bytes a known function of their offset.
    const big = Buffer.alloc(2_621_440 + 7)
    for (let i = 0; i < big.length; i++) big[i] = (i * 31 + (i >> 11)) & 0xff
    const made = await upload(
      c,
      c.tokens.member.write,
      multipart([
        { field: 'card', value: c.card.id },
        { field: 'file', filename: 'data.bin', data: big },
      ]),
    )
    assert.equal(made.status, 201, JSON.stringify(made.body))
    const file = made.body.file
    assert.equal(file.size, big.length)
    assert.equal(file.sha256, sha256(big))
    const chunks = await dbAll<{ seq: number; n: number }>(
      c.t.deps.db,
      'SELECT seq, length(data) AS n FROM file_chunks WHERE file_id = ? ORDER BY seq',
      file.id,
    )
    assert.deepEqual(
      chunks.map((k) => [Number(k.seq), Number(k.n)]),
      [
        [0, 1_048_576],
        [1, 1_048_576],
        [2, 524_295],
      ],
      'chunks of at most 1 MB',
    )

    const whole = await download(c, tok, file.id)
    assert.equal(whole.status, 200)
    assert.equal(sha256(whole.bytes), sha256(big))
    const h = whole.headers
    assert.equal(h.get('etag'), `"${sha256(big)}"`)
    assert.equal(h.get('accept-ranges'), 'bytes')
    assert.equal(h.get('x-content-type-options'), 'nosniff')
    assert.equal(h.get('content-security-policy'), 'sandbox')
    assert.equal(h.get('content-length'), String(big.length))
    assert.equal(h.get('content-disposition'), `attachment; filename="data.bin"; filename*=UTF-8''data.bin`)

    const notModified = await download(c, tok, file.id, { 'if-none-match': `"${sha256(big)}"` })
    assert.equal(notModified.status, 304)
    assert.equal(notModified.bytes.length, 0)
    assert.equal((await download(c, tok, file.id, { 'if-none-match': '"other"' })).status, 200)

    const ranges: [string, number, number][] = [
      ['bytes=1048570-1048581', 1_048_570, 1_048_581], // across the first chunk boundary
      ['bytes=2097150-', 2_097_150, big.length - 1], // open-ended, across the second
      ['bytes=-5', big.length - 5, big.length - 1], // the last five
      ['bytes=0-0', 0, 0],
      [`bytes=10-${big.length + 100}`, 10, big.length - 1], // an end past the file is cut to it
    ]
    for (const [range, start, end] of ranges) {
      const part = await download(c, tok, file.id, { range })
      assert.equal(part.status, 206, range)
      assert.equal(part.headers.get('content-range'), `bytes ${start}-${end}/${big.length}`, range)
      assert.ok(part.bytes.equals(big.subarray(start, end + 1)), range)
      assert.equal(part.headers.get('x-content-type-options'), 'nosniff')
    }
    const past = await download(c, tok, file.id, { range: `bytes=${big.length}-` })
    assert.equal(past.status, 416)
    assert.equal(past.headers.get('content-range'), `bytes */${big.length}`)
    assert.equal(JSON.parse(past.bytes.toString()).error.code, 'range_not_satisfiable')
    // Several ranges, or a malformed header: the whole file. If-Range with another tag: the whole file too.
    const wholeAgain: Record<string, string>[] = [{ range: 'bytes=0-1,5-6' }, { range: 'lines=1-2' }, { range: 'bytes=0-1', 'if-range': '"stale"' }]
    for (const headers of wholeAgain) assert.equal((await download(c, tok, file.id, headers)).status, 200, JSON.stringify(headers))

    // HTML is never shown in place; PNG is.
    const html = await download(c, tok, c.html.id)
    assert.equal(html.bytes.toString(), HTML)
    assert.match(html.headers.get('content-disposition')!, /^attachment; /)
    assert.equal(html.headers.get('content-security-policy'), 'sandbox')
    const png = await download(c, tok, c.png.id)
    assert.equal(png.headers.get('content-type'), 'image/png')
    assert.match(png.headers.get('content-disposition')!, /^inline; filename="dot.png"/)
    assert.equal((await download(c, c.tokens.outsider.read, c.png.id)).status, 404)
  } finally {
    await c.t.close()
  }
})

/** An upload over a raw request: the body written piece by piece, `cut` destroying the request after `cut` bytes. */
function rawUpload(url: string, token: string, pieces: Iterable<Buffer>, opts: { length?: number; cut?: number } = {}) {
  return new Promise<{ status: number | null; body: string }>((resolve) => {
    const headers: Record<string, string | number> = { ...formHeaders, authorization: `Bearer ${token}` }
    if (opts.length !== undefined) headers['content-length'] = opts.length
    const req = http.request(`${url}/v1/files`, { method: 'POST', headers })
    let sent = 0
    req.on('response', (res) => {
      let body = ''
      res.on('data', (d: Buffer) => (body += d.toString()))
      res.on('end', () => resolve({ status: res.statusCode ?? null, body }))
      res.on('error', () => resolve({ status: res.statusCode ?? null, body }))
    })
    req.on('error', () => resolve({ status: null, body: '' }))
    const it = pieces[Symbol.iterator]()
    const write = () => {
      for (;;) {
        const next = it.next()
        if (next.done) return void req.end()
        sent += next.value.length
        if (opts.cut !== undefined && sent > opts.cut) return void req.destroy()
        if (!req.write(next.value)) return void req.once('drain', write)
      }
    }
    write()
  })
}

function* filePieces(cardId: string, bytes: number, piece = 65_536): Generator<Buffer> {
  yield Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="card"\r\n\r\n${cardId}\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n\r\n`,
  )
  for (let sent = 0; sent < bytes; sent += piece) yield Buffer.alloc(Math.min(piece, bytes - sent), 0x61)
  yield Buffer.from(`\r\n--${BOUNDARY}--\r\n`)
}

test('TASKD_MAX_FILE_BYTES: past it 413, declared or counted while streaming, and nothing stays; a client that goes away leaves nothing', async () => {
  const s = await seededApp({ maxFileBytes: String(2_000_000) })
  try {
    const card = (await s.t.req('POST', '/v1/cards', { token: s.tokens.member.write, body: { board: s.board.id, title: 'Big' } })).body.card
    const stored = async () =>
      Number((await dbGet<{ n: number }>(s.t.deps.db, 'SELECT (SELECT count(*) FROM files) + (SELECT count(*) FROM file_chunks) AS n'))!.n)
    const tok = s.tokens.member.write
    // Declared too large: refused unread.
    const declared = await rawUpload(s.t.url, tok, filePieces(card.id, 3_000_000), { length: 3_000_300 })
    assert.equal(declared.status, 413, declared.body)
    assert.equal(JSON.parse(declared.body).error.code, 'payload_too_large')
    // Chunked, no length: counted as it streams, two chunks written, then refused and discarded.
    const streamed = await rawUpload(s.t.url, tok, filePieces(card.id, 3_000_000))
    assert.equal(streamed.status, 413, streamed.body)
    assert.equal(await stored(), 0, 'a refused upload leaves no file and no chunk')
    // The whole body is counted, not only the file: a small file behind a preamble past the limit is refused too.
    const padded = await rawUpload(s.t.url, tok, [Buffer.alloc(2_200_000, 0x20), ...filePieces(card.id, 10)])
    assert.equal(padded.status, 413, padded.body)
    assert.equal(await stored(), 0, 'nothing stays of it')
    // Exactly the limit is taken.
    const fits = await rawUpload(s.t.url, tok, filePieces(card.id, 2_000_000))
    assert.equal(fits.status, 201, fits.body)
    assert.equal(JSON.parse(fits.body).file.sha256, sha256(Buffer.alloc(2_000_000, 0x61)))
    const before = await stored()
    // A client that goes away mid-file: what was written goes too.
    const gone = await rawUpload(s.t.url, tok, filePieces(card.id, 1_500_000), { length: 1_500_300, cut: 1_200_000 })
    assert.equal(gone.status, null)
    await until('the cut-off upload is discarded', async () => (await stored()) === before)
    assert.equal(Number((await dbGet<{ n: number }>(s.t.deps.db, 'SELECT count(*) AS n FROM files WHERE complete = 0'))!.n), 0)
    // Still serving.
    assert.equal((await s.t.req('GET', '/v1/users/me', { token: tok })).status, 200)
  } finally {
    await s.t.close()
  }
})

test('a card deleted for good takes its files and their chunks; a note deleted takes its files; a trashed card keeps them', async () => {
  const c = await fixture()
  try {
    const tok = c.tokens.member.write
    assert.equal((await c.t.req('DELETE', `/v1/cards/${c.card.id}`, { token: tok })).status, 204)
    assert.equal((await c.t.req('GET', `/v1/files/${c.text.id}`, { token: tok })).status, 200, 'in the trash, its files stay')
    assert.equal((await c.t.req('DELETE', `/v1/cards/${c.card.id}?permanent=true`, { token: c.tokens.admin.write })).status, 204)
    assert.equal((await c.t.req('GET', `/v1/files/${c.text.id}`, { token: tok })).status, 404)
    assert.deepEqual(await dbAll(c.t.deps.db, 'SELECT id FROM files WHERE card_id IS NOT NULL'), [])
    assert.equal(await countChunks(c), 1, "only the note's file is left")
    assert.equal((await c.t.req('DELETE', `/v1/notes/${c.note.id}`, { token: tok })).status, 204)
    assert.equal(await countFiles(c), 0)
    assert.equal(await countChunks(c), 0)
  } finally {
    await c.t.close()
  }
})

test("MCP: list_card_files lists a card's files as the REST list does; a card out of sight is a tool error", async () => {
  const c = await fixture()
  const connect = async (token: string) => {
    const client = new Client({ name: 'taskd-test', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${c.t.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }))
    return client
  }
  const member = await connect(c.tokens.member.read)
  const outsider = await connect(c.tokens.outsider.read)
  try {
    const listed = (await member.callTool({ name: 'list_card_files', arguments: { card: c.card.id } })) as { isError?: boolean; structuredContent?: any }
    assert.ok(!listed.isError)
    assert.deepEqual(
      listed.structuredContent.items.map((f: { id: string; sha256: string }) => [f.id, f.sha256]),
      [
        [c.text.id, sha256(TEXT)],
        [c.html.id, sha256(HTML)],
      ],
    )
    const refused = (await outsider.callTool({ name: 'list_card_files', arguments: { card: c.card.id } })) as { isError?: boolean }
    assert.equal(refused.isError, true)
  } finally {
    await member.close()
    await outsider.close()
    await c.t.close()
  }
})

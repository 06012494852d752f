// The PostgreSQL floor: a bare node:http + pg server doing what the SQL design could do at least on PostgreSQL, the
// same work as limit-server.js --floor does on SQLite, on the same database server taskd-pg uses, so that taskd-pg's
// figures read as a ratio to what PostgreSQL itself allows on this machine (x/floor for the pg servers).
//   POST /v1/cards   The token's hash looked up (one indexed SELECT on tokens), then one transaction: the key number
//                    from boards.next_key (the membership check folded into that UPDATE ... RETURNING), and in one
//                    statement the card row (its first list and its position as subqueries) and one `events` row with
//                    a small JSON (id, key, title, board); 201 { card: { id, key, title, board } }. Four round trips
//                    (BEGIN, UPDATE, INSERT, COMMIT), every statement prepared once per connection. No tags,
//                    assignees or watchers rows, no enrichment, no webhook lookup, no outbox row.
//   GET /v1/cards    The selective filter: the token lookup, then the COUNT(*) and the page (default order, by
//                    the board's position index), the membership a constant EXISTS in both, on one connection. The
//                    items are the cards' rows as they are.
//   GET /v1/cards?board=…&sort=-xattr.<key>&filter=xattr.<key>>=n   (the `xattr` scenario) the token lookup, the
//                    COUNT(*) and the page read from the custom field's value index (card_xattr_num) in value order,
//                    the cards by id, the membership a constant EXISTS; the items are the cards' rows as they are.
//
//   node bench/pg-floor-server.js <postgres-url> [port]   prints "floor-pg listening on http://127.0.0.1:<port>"
//   Under fork() it sends { port } to the parent and closes on the message "close".
import crypto from 'node:crypto'
import http from 'node:http'
import pg from 'pg'
import { newId } from '../dist/src/ids.js' // taskd's ids: new rows go where taskd's go in every index

const [url, portArg] = process.argv.slice(2)
if (!url) {
  console.error('usage: node bench/pg-floor-server.js <postgres-url> [port]')
  process.exit(2)
}
// As many connections as taskd's default pool (TASKD_DB_POOL_SIZE 10).
const pool = new pg.Pool({ connectionString: url, max: 10 })

const WHERE = `cards.board_id = $1 AND cards.trashed = 0 AND cards.priority >= $2
  AND EXISTS (SELECT 1 FROM board_members m WHERE m.board_id = $1 AND m.user_id = $3)
  AND EXISTS (SELECT 1 FROM card_tags ct WHERE ct.card_id = cards.id
    AND ct.tag_id IN (SELECT id FROM tags WHERE board_id = $1 AND (lower(name) = lower($4) OR id = $4)))`
// The custom-field list ($1 board, $2 key, $3 least value, $4 user), as limit-server.js --floor reads it on SQLite.
const XATTR_WHERE = `WHERE x.field_id = (SELECT id FROM xattr_fields WHERE board_id = $1 AND key = $2) AND x.num >= $3
  AND cards.trashed = 0 AND EXISTS (SELECT 1 FROM board_members m WHERE m.board_id = $1 AND m.user_id = $4)`
// Named statements: pg prepares each once per connection and then only binds.
const Q = {
  auth: 'SELECT user_id, permission, expires_at FROM tokens WHERE hash = $1',
  takeNumber: `UPDATE boards SET next_key = next_key + 1
    WHERE id = $1 AND EXISTS (SELECT 1 FROM board_members m WHERE m.board_id = boards.id AND m.user_id = $2) RETURNING next_key, key_prefix`,
  insert: `WITH card AS (
      INSERT INTO cards (id, board_id, list_id, key_num, key, title, position, priority, due_date, created_by, created_at, updated_at)
      SELECT $1, $2, l.id, $3, $4, $5, (SELECT COALESCE(MAX(c.position), 0) + 1 FROM cards c WHERE c.list_id = l.id), $6, $7, $8, $9, $9
      FROM (SELECT id FROM lists WHERE board_id = $2 ORDER BY position, created_at LIMIT 1) l
      RETURNING id)
    INSERT INTO events (id, name, board_id, data, created_at) SELECT $10, 'card.created', $2, $11, $9 FROM card`,
  count: `SELECT count(*)::int AS n FROM cards WHERE ${WHERE}`,
  page: `SELECT cards.* FROM cards WHERE ${WHERE} ORDER BY cards.position, cards.created_at, cards.id LIMIT $5 OFFSET $6`,
  xattrCount: `SELECT count(*)::int AS n FROM card_xattr x JOIN cards ON cards.id = x.card_id ${XATTR_WHERE}`,
  xattrPage: `SELECT cards.* FROM card_xattr x JOIN cards ON cards.id = x.card_id ${XATTR_WHERE} ORDER BY x.num DESC, x.card_id DESC LIMIT $5 OFFSET $6`,
}
const run = (client, name, values) => client.query({ name, text: Q[name], values })

class Fail extends Error {
  constructor(status, code, message) {
    super(message)
    this.status = status
    this.code = code
  }
}

async function authenticate(req) {
  const m = /^Bearer\s+(tt_[0-9A-Za-z]{40,200})\s*$/i.exec(req.headers.authorization ?? '')
  if (!m) throw new Fail(401, 'unauthorized', 'Missing or malformed token.')
  const [t] = (await run(pool, 'auth', [crypto.createHash('sha256').update(m[1]).digest('hex')])).rows
  if (!t || (t.expires_at !== null && Date.parse(t.expires_at) <= Date.now())) throw new Fail(401, 'unauthorized', 'Unknown token.')
  return t
}

const dateValue = (v) => (typeof v === 'string' && v ? v : null)

async function create(auth, body) {
  const title = typeof body?.title === 'string' ? body.title.trim() : ''
  const priority = body?.priority ?? 0
  if (!title || typeof body.board !== 'string' || !Number.isInteger(priority) || priority < 0 || priority > 4) {
    throw new Fail(422, 'validation_failed', 'title, board and a priority of 0 to 4.')
  }
  const client = await pool.connect()
  try {
    await client.query('BEGIN')
    const [taken] = (await run(client, 'takeNumber', [body.board, auth.user_id])).rows
    if (!taken) throw new Fail(404, 'not_found', 'No such board.')
    const id = newId()
    const num = Number(taken.next_key) - 1
    const key = `${taken.key_prefix}-${num}`
    const at = new Date().toISOString()
    const card = { id, key, title, board: body.board }
    const inserted = await run(client, 'insert', [
      id,
      body.board,
      num,
      key,
      title,
      priority,
      dateValue(body.due_date),
      auth.user_id,
      at,
      newId(),
      JSON.stringify(card),
    ])
    if (inserted.rowCount !== 1) throw new Fail(422, 'validation_failed', 'The board has no list.')
    await client.query('COMMIT')
    return card
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined)
    throw err
  } finally {
    client.release()
  }
}

const SELECTIVE_RE = /^board="([^"]*)" && priority>=([0-4]) && tags~"([^"]*)"$/
const XATTR_RE = /^xattr\.([a-z][a-z0-9_]*)>=(\d+)$/

async function list(auth, params) {
  const perPage = Number(params.get('per_page') ?? 30)
  const page = Number(params.get('page') ?? 1)
  const x = XATTR_RE.exec(params.get('filter') ?? '')
  const byField = x && params.get('sort') === `-xattr.${x[1]}` && params.get('board')
  const m = SELECTIVE_RE.exec(params.get('filter') ?? '')
  if ((!m && !byField) || !Number.isInteger(perPage) || perPage < 1 || perPage > 500 || !Number.isInteger(page) || page < 1) {
    throw new Fail(400, 'bad_request', 'The floor knows only the selective and custom-field lists of the bench.')
  }
  const [countQuery, pageQuery] = byField ? ['xattrCount', 'xattrPage'] : ['count', 'page']
  const args = byField ? [params.get('board'), x[1], Number(x[2]), auth.user_id] : [m[1], Number(m[2]), auth.user_id, m[3]]
  const client = await pool.connect()
  try {
    const count = (await run(client, countQuery, args)).rows[0].n
    const items = (await run(client, pageQuery, [...args, perPage, (page - 1) * perPage])).rows
    return { page, perPage, totalItems: count, totalPages: Math.ceil(count / perPage), items }
  } finally {
    client.release()
  }
}

function send(res, status, body) {
  const text = JSON.stringify(body)
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) })
  res.end(text)
}

async function handle(req, raw) {
  const url = new URL(req.url, 'http://x')
  if (url.pathname !== '/v1/cards') throw new Fail(404, 'not_found', 'No route.')
  const auth = await authenticate(req)
  if (req.method === 'GET') return [200, await list(auth, url.searchParams)]
  if (req.method !== 'POST') throw new Fail(404, 'not_found', 'No route.')
  if (auth.permission === 'read') throw new Fail(403, 'forbidden', 'Read-only token.')
  if (!/^application\/(.+\+)?json\b/.test(req.headers['content-type'] ?? '')) throw new Fail(415, 'unsupported_media_type', 'JSON only.')
  let body
  try {
    body = JSON.parse(raw.toString('utf8') || '{}')
  } catch {
    throw new Fail(400, 'bad_request', 'Invalid JSON.')
  }
  return [201, { card: await create(auth, body) }]
}

const server = http.createServer((req, res) => {
  const chunks = []
  req.on('data', (c) => chunks.push(c))
  req.on('end', () => {
    handle(req, Buffer.concat(chunks)).then(
      ([status, body]) => send(res, status, body),
      (err) => {
        if (err instanceof Fail) return send(res, err.status, { error: { code: err.code, message: err.message } })
        console.error(err)
        send(res, 500, { error: { code: 'internal', message: 'Internal error.' } })
      },
    )
  })
})
server.keepAliveTimeout = 5000

let closing = false
function close() {
  if (closing) return
  closing = true
  server.close(() => {
    void pool.end().finally(() => process.exit(0))
  })
  server.closeAllConnections()
}
process.on('SIGTERM', close)
process.on('SIGINT', close)
process.on('message', (m) => {
  if (m === 'close') close()
})
process.on('disconnect', close) // under fork(): never outlive the parent

server.listen(Number(portArg ?? 0), '127.0.0.1', () => {
  const { port } = server.address()
  if (process.send) process.send({ port })
  else console.log(`floor-pg listening on http://127.0.0.1:${port}`)
})

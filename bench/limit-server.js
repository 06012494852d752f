// The machine's limit: a bare node:http + better-sqlite3 server doing the SQLite work of the two benchmarked taskd
// routes with hand-written SQL and prepared statements, and nothing else (no Express, no Kysely, no zod).
//
//   POST /v1/cards   Same writes as taskd's createCard for a body with title, board, priority, tags, assignees,
//                    watchers, dates: token lookup, board + membership check, the referenced users/tags checked,
//                    the board's first list, the key number from boards.next_key (UPDATE ... RETURNING, read with
//                    .all()), max position, the card row, its card_assignees / card_watchers / card_tags rows, and
//                    one `events` row for card.created plus one per assignee for card.assigned (with the same
//                    enriched data, names included), plus the webhook subscription lookup per event, all in one IMMEDIATE
//                    transaction. It does not re-read the card it has just written.
//   GET /v1/cards    Only the two filters the bench sends, with the same WHERE semantics as taskd (visibility
//                    subquery on board_members, trashed = 0, the filter) and the same COUNT(*) total, the page in
//                    the default order (position, created, id), then the page's assignees, watchers, tags, files,
//                    list categories, list statuses, checklist progress, subtasks and open blockers, custom fields and
//                    their values (one query each). The JSON has the same shape as taskd's.
//
//   POST /v1/hooks/<path>  The bare floor of an incoming webhook: the body read, checked as JSON, and one row written
//                    (a table of its own with the columns of incoming_requests), then 202 { accepted, request_id }.
//
// With --floor, the floor of the SQL design instead (issue 15): what the schema could do at least, whatever taskd does.
//   POST /v1/cards   The token's hash looked up (one indexed SELECT on tokens), then in one IMMEDIATE transaction the
//                    key number from boards.next_key (the membership check folded into that UPDATE), the card row
//                    (its first list and its position as subqueries of the INSERT) and one `events` row with a small
//                    JSON (id, key, title, board); 201 { card: { id, key, title, board } }. No tags, assignees or
//                    watchers rows, no enrichment, no webhook lookup, no outbox row.
//   GET /v1/cards    The selective filter only: the token lookup, then the COUNT(*) and the page, with the board
//                    membership a constant EXISTS in both and the tag's ids of the board looked up once (the
//                    fastest of the forms tried). The count reads the covering index (board_id, trashed, priority,
//                    id); the page is read in the default order from cards_board_position (INDEXED BY: SQLite's
//                    planner would rather sort the priority range) and stops at its end. The items are the cards'
//                    rows as they are (no assignees, tags, watchers, state or creator name).
//
//   GET /v1/cards?board=…&sort=-xattr.<key>&filter=xattr.<key>>=n   (the `xattr` scenario, floor only) the token
//                    lookup, the COUNT(*) and the page read from the custom field's value index in value order, the
//                    cards by id; the items are the cards' rows as they are.
//
//   node bench/limit-server.js [--floor] <db-file> [port]   prints "limit listening on http://127.0.0.1:<port>"
//   Under fork() it sends { port } to the parent and closes on the message "close".
import crypto from 'node:crypto'
import http from 'node:http'
import Database from 'better-sqlite3'
import { newId } from '../dist/src/ids.js' // taskd's ids: new rows go where taskd's go in every index

const floor = process.argv.includes('--floor')
const [file, portArg] = process.argv.slice(2).filter((a) => a !== '--floor')
if (!file) {
  console.error('usage: node bench/limit-server.js [--floor] <db-file> [port]')
  process.exit(2)
}
const db = new Database(file)
// The pragmas of taskd's openDatabase.
db.pragma('journal_mode = WAL')
db.pragma('busy_timeout = 5000')
db.pragma('foreign_keys = ON')
db.pragma('synchronous = NORMAL')
db.pragma('cache_size = -2000') // and src/db/connection.ts's

// Parameters as (+?), as taskd's SQLite dialect writes them (src/db/sqlite.ts): better-sqlite3 clears a call's arguments
// after it, and SQLite then plans again, before the next run, every statement whose plan looked at them (a join, an
// ORDER BY, a MAX). The limit and the floor are the machine's best, so they are spared that as taskd is.
const prepare = (sql) => db.prepare(sql.replace(/\?|@\w+/g, '(+$&)'))

const VISIBLE = 'cards.board_id IN (SELECT board_members.board_id FROM board_members WHERE board_members.user_id = ?) AND cards.trashed = 0'
const SELECTIVE = `${VISIBLE} AND cards.board_id = ? AND cards.priority >= ? AND EXISTS (SELECT 1 FROM card_tags ct
  JOIN tags t ON t.id = ct.tag_id WHERE ct.card_id = cards.id AND (t.id = ? OR t.name = ? COLLATE NOCASE))`
const TEXT = `${VISIBLE} AND instr(lower(cards.title), lower(?)) > 0`
const ORDER = 'ORDER BY cards.position, cards.created_at, cards.id LIMIT ? OFFSET ?'
const IN_JSON = 'IN (SELECT value FROM json_each(?))'

const q = {
  auth: prepare(`SELECT t.id, t.user_id, t.permission, t.expires_at, u.role, u.name FROM tokens t JOIN users u ON u.id = t.user_id
    WHERE t.hash = ?`),
  touch: prepare('UPDATE tokens SET last_used_at = ? WHERE id = ?'),
  board: prepare('SELECT id, name, key_prefix FROM boards WHERE id = ?'),
  member: prepare('SELECT 1 FROM board_members WHERE board_id = ? AND user_id = ?').pluck(),
  users: prepare(`SELECT id, name FROM users WHERE id ${IN_JSON}`),
  tags: prepare(`SELECT id, board_id, name FROM tags WHERE id ${IN_JSON}`),
  list: prepare('SELECT id, board_id, name, category FROM lists WHERE id = ?'),
  firstList: prepare('SELECT id, board_id, name, category FROM lists WHERE board_id = ? ORDER BY position, created_at LIMIT 1'),
  // .all(), never .get(), on RETURNING: with .get() the statement commits inside sqlite3_reset, no autocheckpoint runs and the WAL grows without bound.
  takeNumber: prepare('UPDATE boards SET next_key = next_key + 1 WHERE id = ? RETURNING next_key').pluck(),
  maxPosition: prepare('SELECT max(position) FROM cards WHERE list_id = ?').pluck(),
  insertCard: prepare(`INSERT INTO cards (id, board_id, list_id, key_num, key, title, description, position, priority,
    start_date, due_date, completed, completed_at, archived, trashed, idempotency_key, created_by, created_at, updated_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, NULL, ?, ?, ?)`),
  insertAssignee: prepare('INSERT INTO card_assignees (card_id, user_id) VALUES (?, ?)'),
  insertWatcher: prepare('INSERT INTO card_watchers (card_id, user_id) VALUES (?, ?)'),
  insertTag: prepare('INSERT INTO card_tags (card_id, tag_id) VALUES (?, ?)'),
  insertEvent: prepare(`INSERT INTO events (id, seq, name, board_id, data, created_at)
    VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM events), ?, ?, ?, ?)`),
  subscriptions: prepare(`SELECT w.id, w.events FROM webhooks w JOIN users u ON u.id = w.created_by WHERE w.active = 1
    AND (NOT EXISTS (SELECT 1 FROM webhook_boards wb WHERE wb.webhook_id = w.id)
      OR EXISTS (SELECT 1 FROM webhook_boards wb WHERE wb.webhook_id = w.id AND wb.board_id = ?))
    AND (u.role IN ('owner', 'admin') OR EXISTS (SELECT 1 FROM board_members bm WHERE bm.board_id = ? AND bm.user_id = w.created_by))`),
  countSelective: prepare(`SELECT count(*) FROM cards WHERE ${SELECTIVE}`).pluck(),
  pageSelective: prepare(`SELECT cards.* FROM cards WHERE ${SELECTIVE} ${ORDER}`),
  countText: prepare(`SELECT count(*) FROM cards WHERE ${TEXT}`).pluck(),
  pageText: prepare(`SELECT cards.* FROM cards WHERE ${TEXT} ${ORDER}`),
  assigneesOf: prepare(`SELECT card_id, user_id AS v FROM card_assignees WHERE card_id ${IN_JSON} ORDER BY user_id`),
  watchersOf: prepare(`SELECT card_id, user_id AS v FROM card_watchers WHERE card_id ${IN_JSON} ORDER BY user_id`),
  tagsOf: prepare(`SELECT card_id, tag_id AS v FROM card_tags WHERE card_id ${IN_JSON} ORDER BY tag_id`),
  categories: prepare(`SELECT id, category FROM lists WHERE id ${IN_JSON}`),
  usersOf: prepare(`SELECT id, name FROM users WHERE id ${IN_JSON}`),
  progressOf: prepare(`SELECT c.card_id, count(*) AS total, sum(i.completed) AS done FROM checklist_items i
    JOIN checklists c ON c.id = i.checklist_id WHERE c.card_id ${IN_JSON} GROUP BY c.card_id`),
  filesOf: prepare(`SELECT card_id, id AS v FROM files WHERE card_id ${IN_JSON} AND complete = 1 ORDER BY created_at, id`),
  planningOf: prepare(`SELECT 's' AS what, parent_id AS id, count(*) AS n, sum(completed) AS done FROM cards
     WHERE parent_id ${IN_JSON} AND trashed = 0 GROUP BY parent_id
    UNION ALL
    SELECT 'b', d.blocked_id, count(*), 0 FROM card_dependencies d JOIN cards b ON b.id = d.blocker_id
     WHERE d.blocked_id ${IN_JSON} AND b.completed = 0 AND b.trashed = 0 GROUP BY d.blocked_id`),
  statusesOf: prepare(`SELECT l.id AS list_id, s.id, s.name, s.category FROM lists l JOIN board_statuses s ON s.id = l.status_id
    WHERE l.id ${IN_JSON}`),
  fieldsOf: prepare(`SELECT id, board_id, key, type FROM xattr_fields WHERE board_id ${IN_JSON} ORDER BY position, id`),
  xattrOf: prepare(`SELECT card_id, field_id, num, str FROM card_xattr WHERE card_id ${IN_JSON} ORDER BY card_id, field_id, seq`),
}

// The floor's statements (--floor).
const FLOOR_WHERE = `cards.board_id = @board AND cards.trashed = 0 AND cards.priority >= @priority
  AND EXISTS (SELECT 1 FROM board_members m WHERE m.board_id = @board AND m.user_id = @user)
  AND EXISTS (SELECT 1 FROM card_tags ct WHERE ct.card_id = cards.id
    AND ct.tag_id IN (SELECT id FROM tags WHERE board_id = @board AND (name = @tag COLLATE NOCASE OR id = @tag)))`
const XATTR_WHERE = `WHERE x.field_id = (SELECT id FROM xattr_fields WHERE board_id = @board AND key = @key) AND x.num >= @min
  AND cards.trashed = 0 AND EXISTS (SELECT 1 FROM board_members m WHERE m.board_id = @board AND m.user_id = @user)`
const f = floor && {
  auth: prepare('SELECT user_id, permission, expires_at FROM tokens WHERE hash = ?'),
  takeNumber: prepare(`UPDATE boards SET next_key = next_key + 1
    WHERE id = ? AND EXISTS (SELECT 1 FROM board_members m WHERE m.board_id = boards.id AND m.user_id = ?) RETURNING next_key, key_prefix`),
  insertCard: prepare(`INSERT INTO cards (id, board_id, list_id, key_num, key, title, position, priority, due_date, created_by, created_at, updated_at)
    SELECT @id, @board, l.id, @num, @key, @title, (SELECT COALESCE(MAX(c.position), 0) + 1 FROM cards c WHERE c.list_id = l.id), @priority, @due,
      @user, @at, @at
    FROM (SELECT id FROM lists WHERE board_id = @board ORDER BY position, created_at LIMIT 1) l`),
  count: prepare(`SELECT count(*) FROM cards WHERE ${FLOOR_WHERE}`).pluck(),
  page: prepare(
    `SELECT cards.* FROM cards INDEXED BY cards_board_position WHERE ${FLOOR_WHERE} ORDER BY cards.position, cards.created_at, cards.id LIMIT @limit OFFSET @offset`,
  ),
  // The custom-field list: the board's field by key, its value index range read in value order (every card of it has a
  // value, so no second read of those without one), the card by id; membership as a constant EXISTS.
  xattrCount: prepare(`SELECT count(*) FROM card_xattr x JOIN cards ON cards.id = x.card_id ${XATTR_WHERE}`).pluck(),
  xattrPage: prepare(
    `SELECT cards.* FROM card_xattr x JOIN cards ON cards.id = x.card_id ${XATTR_WHERE} ORDER BY x.num DESC, x.card_id DESC LIMIT @limit OFFSET @offset`,
  ),
}

class Fail extends Error {
  constructor(status, code, message) {
    super(message)
    this.status = status
    this.code = code
  }
}

const lastTouched = new Map()
function authenticate(req) {
  const m = /^Bearer\s+(tt_[0-9A-Za-z]{40,200})\s*$/i.exec(req.headers.authorization ?? '')
  if (!m) throw new Fail(401, 'unauthorized', 'Missing or malformed token.')
  const t = (floor ? f : q).auth.get(crypto.createHash('sha256').update(m[1]).digest('hex'))
  const now = Date.now()
  if (!t || (t.expires_at !== null && Date.parse(t.expires_at) <= now)) throw new Fail(401, 'unauthorized', 'Unknown token.')
  if (!floor && now - (lastTouched.get(t.id) ?? 0) >= 60_000) {
    lastTouched.set(t.id, now)
    q.touch.run(new Date(now).toISOString(), t.id)
  }
  return t
}

const PRIORITY_NAMES = ['none', 'low', 'medium', 'high', 'urgent']
const DAY = /^\d{4}-\d{2}-\d{2}$/
const dateValue = (v) => (v == null ? null : DAY.test(v) ? v : new Date(v).toISOString())
const idList = (v, field) => {
  if (v === undefined) return []
  if (!Array.isArray(v) || v.length > 100 || v.some((x) => typeof x !== 'string' || x.length === 0)) {
    throw new Fail(422, 'validation_failed', `${field} must be an array of ids`)
  }
  return [...new Set(v)]
}

function createCard(auth, body) {
  if (typeof body !== 'object' || body === null) throw new Fail(422, 'validation_failed', 'Body must be an object.')
  const title = typeof body.title === 'string' ? body.title.trim() : ''
  if (!title || title.length > 500 || typeof body.board !== 'string') throw new Fail(422, 'validation_failed', 'title and board are required.')
  const priority = body.priority ?? 0
  if (!Number.isInteger(priority) || priority < 0 || priority > 4) throw new Fail(422, 'validation_failed', 'priority is 0 to 4.')
  const description = body.description ?? ''
  if (typeof description !== 'string' || description.length > 100_000) throw new Fail(422, 'validation_failed', 'description')
  for (const f of ['start_date', 'due_date']) {
    const v = body[f]
    if (v != null && (typeof v !== 'string' || Number.isNaN(Date.parse(v)))) throw new Fail(422, 'validation_failed', `${f} is a date`)
  }
  const assignees = idList(body.assignees, 'assignees')
  const watchers = idList(body.watchers, 'watchers')
  const tagIds = idList(body.tags, 'tags')

  return db
    .transaction(() => {
      const board = q.board.get(body.board)
      if (!board || q.member.get(board.id, auth.user_id) === undefined) throw new Fail(404, 'not_found', 'No such board.')
      const people = new Map()
      for (const ids of [assignees, watchers]) {
        if (ids.length === 0) continue
        const found = q.users.all(JSON.stringify(ids))
        if (found.length !== ids.length) throw new Fail(422, 'validation_failed', 'unknown user')
        for (const u of found) people.set(u.id, u.name)
      }
      const tags = tagIds.length ? q.tags.all(JSON.stringify(tagIds)) : []
      if (tags.length !== tagIds.length || tags.some((t) => t.board_id !== board.id)) throw new Fail(422, 'validation_failed', 'unknown tag')
      const list = body.list !== undefined ? q.list.get(body.list) : q.firstList.get(board.id)
      if (!list || list.board_id !== board.id) throw new Fail(422, 'validation_failed', 'No such list on this board.')
      // As taskd: the list's status and the board's custom fields are read for the answer (a new card has no values
      // and the seed's fields have no formula, so `xattr` stays empty).
      const status = q.statusesOf.get(JSON.stringify([list.id]))
      q.fieldsOf.all(JSON.stringify([board.id]))
      const num = q.takeNumber.all(board.id)[0] - 1
      const position = body.position ?? (q.maxPosition.get(list.id) ?? 0) + 1
      const now = Date.now()
      const at = new Date(now).toISOString()
      const id = newId()
      const key = `${board.key_prefix}-${num}`
      const start = dateValue(body.start_date),
        due = dateValue(body.due_date)
      const completed = body.completed === true
      q.insertCard.run(
        id,
        board.id,
        list.id,
        num,
        key,
        title,
        description,
        position,
        priority,
        start,
        due,
        completed ? 1 : 0,
        completed ? at : null,
        auth.user_id,
        at,
        at,
      )
      for (const u of assignees) q.insertAssignee.run(id, u)
      for (const u of watchers) q.insertWatcher.run(id, u)
      for (const t of tagIds) q.insertTag.run(id, t)
      assignees.sort()
      watchers.sort()
      tagIds.sort()
      const card = {
        id,
        key,
        title,
        description,
        board: board.id,
        list: list.id,
        position,
        priority,
        assignees,
        tags: tagIds,
        watchers,
        start_date: start,
        due_date: due,
        completed,
        completed_at: completed ? at : null,
        archived: false,
        trashed: false,
        state: list.category,
        created: at,
        updated: at,
        created_by: { id: auth.user_id, name: auth.name },
        checklist_progress: { done: 0, total: 0 },
        files: [],
        status: status ? { id: status.id, name: status.name, category: status.category } : null,
        milestone: null,
        xattr: {},
        parent: null,
        subtasks: { done: 0, total: 0 },
        blocked_by_open: 0,
      }
      if (!people.has(auth.user_id)) people.set(auth.user_id, auth.name)
      const person = (u) => ({ id: u, name: people.get(u) ?? null })
      const data = {
        id,
        key,
        title,
        url: `http://127.0.0.1/v1/cards/${id}`,
        board: { id: board.id, name: board.name },
        list: { id: list.id, name: list.name, category: list.category },
        assignees: assignees.map(person),
        watchers: watchers.map(person),
        tags: tagIds.map((t) => ({ id: t, name: tags.find((x) => x.id === t)?.name ?? null })),
        priority,
        priority_name: PRIORITY_NAMES[priority],
        start_date: start,
        due_date: due,
        completed,
        completed_at: card.completed_at,
        archived: false,
        trashed: false,
        position,
        description_excerpt: description.length <= 280 ? description : `${description.slice(0, 279)}…`,
        created: at,
        updated: at,
        created_by: person(auth.user_id),
        parent: null,
      }
      const actor = person(auth.user_id)
      const emit = (name, extra) => {
        q.insertEvent.run(newId(), name, board.id, JSON.stringify({ ...data, ...extra, actor }), at)
        q.subscriptions.all(board.id, board.id) // none in the bench; taskd asks the same question per event
      }
      emit('card.created')
      for (const u of assignees) emit('card.assigned', { user: person(u) })
      return card
    })
    .immediate()
}

function floorCreate(auth, body) {
  const title = typeof body?.title === 'string' ? body.title.trim() : ''
  const priority = body?.priority ?? 0
  if (!title || typeof body.board !== 'string' || !Number.isInteger(priority) || priority < 0 || priority > 4) {
    throw new Fail(422, 'validation_failed', 'title, board and a priority of 0 to 4.')
  }
  return db
    .transaction(() => {
      const [taken] = f.takeNumber.all(body.board, auth.user_id) // .all() on RETURNING: see takeNumber above
      if (!taken) throw new Fail(404, 'not_found', 'No such board.')
      const id = newId()
      const key = `${taken.key_prefix}-${taken.next_key - 1}`
      const at = new Date().toISOString()
      const card = { id, key, title, board: body.board }
      const row = { id, board: body.board, num: taken.next_key - 1, key, title, priority, due: dateValue(body.due_date), user: auth.user_id, at }
      if (f.insertCard.run(row).changes !== 1) throw new Fail(422, 'validation_failed', 'The board has no list.')
      q.insertEvent.run(newId(), 'card.created', body.board, JSON.stringify(card), at)
      return card
    })
    .immediate()
}

function floorList(auth, params) {
  const perPage = Number(params.get('per_page') ?? 30)
  const page = Number(params.get('page') ?? 1)
  const x = XATTR_RE.exec(params.get('filter') ?? '')
  if (x && params.get('sort') === `-xattr.${x[1]}` && params.get('board')) {
    const args = { user: auth.user_id, board: params.get('board'), key: x[1], min: Number(x[2]) }
    const count = f.xattrCount.get(args)
    const items = f.xattrPage.all({ ...args, limit: perPage, offset: (page - 1) * perPage })
    return { page, perPage, totalItems: count, totalPages: Math.ceil(count / perPage), items }
  }
  const m = SELECTIVE_RE.exec(params.get('filter') ?? '')
  if (!m || !Number.isInteger(perPage) || perPage < 1 || perPage > 500 || !Number.isInteger(page) || page < 1) {
    throw new Fail(400, 'bad_request', 'The floor knows only the selective filter of the bench.')
  }
  const args = { user: auth.user_id, board: m[1], priority: Number(m[2]), tag: m[3] }
  const count = f.count.get(args)
  const items = f.page.all({ ...args, limit: perPage, offset: (page - 1) * perPage })
  return { page, perPage, totalItems: count, totalPages: Math.ceil(count / perPage), items }
}

const SELECTIVE_RE = /^board="([^"]*)" && priority>=([0-4]) && tags~"([^"]*)"$/
const TEXT_RE = /^title~"([^"]*)"$/
const XATTR_RE = /^xattr\.([a-z][a-z0-9_]*)>=(\d+)$/

function listCards(auth, params) {
  const perPage = Number(params.get('per_page') ?? 30)
  const page = Number(params.get('page') ?? 1)
  if (!Number.isInteger(perPage) || perPage < 1 || perPage > 500 || !Number.isInteger(page) || page < 1) {
    throw new Fail(400, 'bad_request', 'Invalid query parameter.')
  }
  const filter = params.get('filter') ?? ''
  let count, rows
  let m
  if ((m = SELECTIVE_RE.exec(filter))) {
    const args = [auth.user_id, m[1], Number(m[2]), m[3], m[3]]
    count = q.countSelective.get(...args)
    rows = q.pageSelective.all(...args, perPage, (page - 1) * perPage)
  } else if ((m = TEXT_RE.exec(filter))) {
    const args = [auth.user_id, m[1]]
    count = q.countText.get(...args)
    rows = q.pageText.all(...args, perPage, (page - 1) * perPage)
  } else {
    throw new Fail(400, 'bad_request', 'The limit server knows only the two filters of the bench.')
  }
  const group = (sel, ids) => {
    const map = new Map()
    for (const r of sel.all(ids)) (map.get(r.card_id) ?? map.set(r.card_id, []).get(r.card_id)).push(r.v)
    return map
  }
  let assignees = new Map(),
    watchers = new Map(),
    tags = new Map(),
    states = new Map(),
    creators = new Map(),
    progress = new Map(),
    files = new Map(),
    statuses = new Map(),
    xattr = new Map()
  const subtasks = new Map(),
    blockers = new Map()
  if (rows.length) {
    const ids = JSON.stringify(rows.map((r) => r.id))
    assignees = group(q.assigneesOf, ids)
    watchers = group(q.watchersOf, ids)
    tags = group(q.tagsOf, ids)
    states = new Map(q.categories.all(JSON.stringify([...new Set(rows.map((r) => r.list_id))])).map((r) => [r.id, r.category]))
    creators = new Map(q.usersOf.all(JSON.stringify([...new Set(rows.flatMap((r) => (r.created_by ? [r.created_by] : [])))])).map((u) => [u.id, u.name]))
    progress = new Map(q.progressOf.all(ids).map((p) => [p.card_id, { done: p.done, total: p.total }]))
    files = group(q.filesOf, ids)
    for (const r of q.planningOf.all(ids, ids)) {
      if (r.what === 's') subtasks.set(r.id, { done: r.done ?? 0, total: r.n })
      else blockers.set(r.id, r.n)
    }
    statuses = new Map(
      q.statusesOf.all(JSON.stringify([...new Set(rows.map((r) => r.list_id))])).map((r) => [r.list_id, { id: r.id, name: r.name, category: r.category }]),
    )
    // Custom field values: number fields only (the seed's kind; taskd shows every kind).
    const fields = new Map(q.fieldsOf.all(JSON.stringify([...new Set(rows.map((r) => r.board_id))])).map((f) => [f.id, f]))
    if (fields.size > 0)
      for (const v of q.xattrOf.all(ids)) {
        const f = fields.get(v.field_id)
        if (f?.type !== 'number') continue
        const values = xattr.get(v.card_id) ?? xattr.set(v.card_id, {}).get(v.card_id)
        values[f.key] = v.num
      }
  }
  const items = rows.map((r) => ({
    id: r.id,
    key: r.key,
    title: r.title,
    description: r.description,
    board: r.board_id,
    list: r.list_id,
    position: r.position,
    priority: r.priority,
    assignees: assignees.get(r.id) ?? [],
    tags: tags.get(r.id) ?? [],
    watchers: watchers.get(r.id) ?? [],
    files: files.get(r.id) ?? [],
    start_date: r.start_date,
    due_date: r.due_date,
    completed: r.completed === 1,
    completed_at: r.completed_at,
    archived: r.archived === 1,
    trashed: r.trashed === 1,
    state: states.get(r.list_id) ?? 'unstarted',
    created: r.created_at,
    updated: r.updated_at,
    created_by: r.created_by ? { id: r.created_by, name: creators.get(r.created_by) ?? '' } : null,
    status: statuses.get(r.list_id) ?? null,
    milestone: r.milestone_id,
    xattr: xattr.get(r.id) ?? {},
    checklist_progress: progress.get(r.id) ?? { done: 0, total: 0 },
    parent: r.parent_id,
    subtasks: subtasks.get(r.id) ?? { done: 0, total: 0 },
    blocked_by_open: blockers.get(r.id) ?? 0,
  }))
  return { page, perPage, totalItems: count, totalPages: Math.ceil(count / perPage), items }
}

function send(res, status, body) {
  const text = JSON.stringify(body)
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) })
  res.end(text)
}

db.exec(`CREATE TABLE IF NOT EXISTS limit_hook_requests (id TEXT PRIMARY KEY, endpoint TEXT NOT NULL, outcome TEXT NOT NULL,
  status INTEGER NOT NULL, method TEXT NOT NULL, ip TEXT NOT NULL, headers TEXT NOT NULL, query TEXT NOT NULL, body TEXT NOT NULL,
  files TEXT NOT NULL, at TEXT NOT NULL)`)
const insertHook = prepare('INSERT INTO limit_hook_requests VALUES (?, ?, ?, 202, ?, ?, ?, ?, ?, ?, ?)')
function receiveHook(req, url, raw) {
  const text = raw.toString('utf8')
  try {
    JSON.parse(text)
  } catch {
    throw new Fail(415, 'unsupported_media_type', 'JSON only.')
  }
  const id = crypto.randomUUID()
  const headers = JSON.stringify({ 'content-type': req.headers['content-type'] })
  insertHook.run(
    id,
    url.pathname.slice('/v1/hooks/'.length),
    'accepted',
    req.method,
    req.socket.remoteAddress,
    headers,
    '{}',
    text,
    '[]',
    new Date().toISOString(),
  )
  return { accepted: true, request_id: id }
}

const server = http.createServer((req, res) => {
  const chunks = []
  req.on('data', (c) => chunks.push(c))
  req.on('end', () => {
    try {
      const url = new URL(req.url, 'http://x')
      if (req.method === 'POST' && url.pathname.startsWith('/v1/hooks/')) return send(res, 202, receiveHook(req, url, Buffer.concat(chunks)))
      if (url.pathname !== '/v1/cards') throw new Fail(404, 'not_found', 'No route.')
      const auth = authenticate(req)
      if (req.method === 'GET') return send(res, 200, (floor ? floorList : listCards)(auth, url.searchParams))
      if (req.method !== 'POST') throw new Fail(404, 'not_found', 'No route.')
      if (auth.permission === 'read') throw new Fail(403, 'forbidden', 'Read-only token.')
      if (!/^application\/(.+\+)?json\b/.test(req.headers['content-type'] ?? '')) throw new Fail(415, 'unsupported_media_type', 'JSON only.')
      let body
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}')
      } catch {
        throw new Fail(400, 'bad_request', 'Invalid JSON.')
      }
      send(res, 201, { card: (floor ? floorCreate : createCard)(auth, body) })
    } catch (err) {
      if (err instanceof Fail) send(res, err.status, { error: { code: err.code, message: err.message } })
      else {
        console.error(err)
        send(res, 500, { error: { code: 'internal', message: 'Internal error.' } })
      }
    }
  })
})
server.keepAliveTimeout = 5000

let closing = false
function close() {
  if (closing) return
  closing = true
  server.close(() => {
    db.close()
    process.exit(0)
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
  else console.log(`${floor ? 'floor' : 'limit'} listening on http://127.0.0.1:${port}`)
})

// Seeds the benchmark database: 1 workspace, 20 boards, 100,000 cards with tags, assignees, watchers and dates.
//
// The schema comes from taskd's own openDatabase (dist/src/db/open.js) and the workspace, users and token from
// taskd's own functions (ensureWorkspace, insertNewUser, issueToken), so the taskd server can authenticate the
// token. Boards, lists, tags and cards go in through one better-sqlite3 transaction with prepared statements (no
// HTTP). Before it is cached, the file is opened once more with openDatabase, so it holds what taskd's open adds
// (planner statistics from PRAGMA optimize). The result is cached in bench/out/ under a key made of SEED_VERSION and
// hashes of schema.sql, src/db/open.ts, src/db/sqlite.ts, src/db/migrate.ts and this file; a change to any of them reseeds.
//
//   node bench/seed.js [--force]     (needs `npm run build` first)
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

export const SEED_VERSION = 1

const here = path.dirname(fileURLToPath(import.meta.url))
export const root = path.resolve(here, '..')
export const outDir = path.join(here, 'out')

export const SHAPE = { boards: 20, cardsPerBoard: 5000, listsPerBoard: 4, extraUsers: 9 }
const TAGS = ['bug', 'feature', 'chore', 'docs', 'ux', 'perf']
const TAG_ODDS = { bug: 0.25, feature: 0.2, chore: 0.1, docs: 0.08, ux: 0.08, perf: 0.05 }
const LISTS = [
  ['Backlog', 'backlog'],
  ['To do', 'unstarted'],
  ['Doing', 'started'],
  ['Done', 'completed'],
]
const VERBS = ['Fix', 'Add', 'Update', 'Remove', 'Refactor', 'Document', 'Review', 'Test', 'Migrate', 'Investigate']
// "report" appears in 1 noun of 10 (and in "reporting"), so title~"report" matches about 11% of the cards.
const NOUNS = [
  'login page',
  'report',
  'billing flow',
  'search index',
  'email template',
  'API client',
  'dashboard',
  'export job',
  'settings screen',
  'onboarding',
]
const QUALIFIERS = [
  'for mobile',
  'in Safari',
  'after upgrade',
  'for admins',
  'on timeout',
  'with reporting enabled',
  'behind the proxy',
  'in the EU region',
  '',
  '',
  '',
  '',
]
const WORDS = [
  'the',
  'user',
  'sees',
  'an',
  'error',
  'when',
  'saving',
  'changes',
  'to',
  'a',
  'large',
  'board',
  'and',
  'then',
  'reloads',
  'page',
  'which',
  'should',
  'not',
  'happen',
  'again',
  'after',
  'this',
  'fix',
]

async function taskd() {
  const dist = path.join(root, 'dist', 'src')
  if (!fs.existsSync(path.join(dist, 'db', 'open.js'))) throw new Error('dist/ is missing: run `npm run build` first')
  const load = (p) => import(pathToFileURL(path.join(dist, p)).href)
  const [{ openDatabase }, { ensureWorkspace, insertNewUser }, { issueToken }] = await Promise.all([
    load('db/open.js'),
    load('resources/users/setup.js'),
    load('resources/tokens/issue.js'),
  ])
  return { openDatabase, ensureWorkspace, insertNewUser, issueToken }
}

/** The cache key: seed version + what the seeded file depends on. */
export function seedKey() {
  const h = crypto.createHash('sha256')
  h.update(String(SEED_VERSION))
  for (const f of ['schema.sql', 'src/db/open.ts', 'src/db/sqlite.ts', 'src/db/migrate.ts']) h.update(fs.readFileSync(path.join(root, f)))
  h.update(fs.readFileSync(fileURLToPath(import.meta.url)))
  return `seed-v${SEED_VERSION}-${h.digest('hex').slice(0, 12)}`
}

/** Deterministic PRNG (mulberry32), so every seed of one version holds the same cards. */
function prng(seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/**
 * Returns { file, meta } for the cached seed, building it when missing (or when force is set).
 * meta: { key, token, owner, users[], boards[{ id, key_prefix, lists[], tags{name: id} }], cards, seconds }
 */
export async function ensureSeed({ force = false, log = (s) => process.stdout.write(`${s}\n`) } = {}) {
  const key = seedKey()
  const file = path.join(outDir, `${key}.db`)
  const metaFile = path.join(outDir, `${key}.json`)
  if (!force && fs.existsSync(file) && fs.existsSync(metaFile)) {
    return { file, meta: JSON.parse(fs.readFileSync(metaFile, 'utf8')), cached: true }
  }
  fs.mkdirSync(outDir, { recursive: true })
  // Older seeds (another version, schema or generator) are of no further use.
  for (const f of fs.readdirSync(outDir))
    if (/^seed-v\d+-[0-9a-f]+\.(db|json)/.test(f) && !f.startsWith(`${key}.`)) fs.rmSync(path.join(outDir, f), { force: true })
  const tmp = `${file}.tmp-${process.pid}`
  for (const f of [tmp, `${tmp}-wal`, `${tmp}-shm`]) fs.rmSync(f, { force: true })
  const t0 = performance.now()
  log(`seeding ${SHAPE.boards * SHAPE.cardsPerBoard} cards into ${path.relative(root, file)} ...`)
  const { openDatabase, ensureWorkspace, insertNewUser, issueToken } = await taskd()
  const db = await openDatabase({ db: tmp, readWorkers: 0 })
  const raw = db.raw
  const rand = prng(20260101)
  const pick = (arr) => arr[Math.floor(rand() * arr.length)]
  const LOWER36 = '0123456789abcdefghijklmnopqrstuvwxyz'
  const rid = () => {
    let s = ''
    for (let i = 0; i < 16; i++) s += LOWER36[Math.floor(rand() * 36)]
    return s
  }
  const DAY = 86_400_000
  const base = Date.parse('2026-01-01T00:00:00.000Z')
  const iso = (ms) => new Date(ms).toISOString()

  // Workspace, owner, members and the bench token: taskd's own functions.
  const seededAt = base
  const people = await db.tx(async ({ q }) => {
    await ensureWorkspace(q, seededAt)
    const owner = await insertNewUser(q, seededAt, { email: 'owner@bench.test', name: 'Bench Owner', role: 'owner' })
    const others = []
    for (let i = 1; i <= SHAPE.extraUsers; i++) {
      others.push(await insertNewUser(q, seededAt, { email: `user${i}@bench.test`, name: `Bench User ${i}`, role: 'member' }))
    }
    const { value } = await issueToken(q, seededAt, owner.id, { name: 'bench', permission: 'full' })
    return { owner, others, token: value }
  })
  const userIds = [people.owner.id, ...people.others.map((u) => u.id)]

  const ins = {
    board: raw.prepare(`INSERT INTO boards (id, name, description, key_prefix, next_key, created_by, created_at, updated_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?)`),
    member: raw.prepare('INSERT INTO board_members (board_id, user_id, created_at) VALUES (?, ?, ?)'),
    list: raw.prepare('INSERT INTO lists (id, board_id, name, position, category, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)'),
    tag: raw.prepare('INSERT INTO tags (id, board_id, name, color, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)'),
    card: raw.prepare(`INSERT INTO cards (id, board_id, list_id, key_num, key, title, description, position, priority,
      start_date, due_date, completed, completed_at, archived, trashed, idempotency_key, created_by, created_at, updated_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    assignee: raw.prepare('INSERT INTO card_assignees (card_id, user_id) VALUES (?, ?)'),
    watcher: raw.prepare('INSERT INTO card_watchers (card_id, user_id) VALUES (?, ?)'),
    cardTag: raw.prepare('INSERT INTO card_tags (card_id, tag_id) VALUES (?, ?)'),
    xattrField: raw.prepare(`INSERT INTO xattr_fields (id, board_id, name, key, type, required, position, created_at, updated_at)
      VALUES (?, ?, 'Estimate', 'estimate', 'number', 0, 1, ?, ?)`),
    xattrValue: raw.prepare('INSERT INTO card_xattr (card_id, field_id, seq, num, str) VALUES (?, ?, 0, ?, NULL)'),
  }
  const firstBoardCards = []

  const boards = []
  let cards = 0
  // One transaction of a few hundred MB: with taskd's small page cache it would spill its pages into the WAL and read
  // them back from there again and again (the full-text index's most of all); this connection keeps them in memory.
  raw.pragma('cache_size = -1000000')
  raw.transaction(() => {
    for (let b = 0; b < SHAPE.boards; b++) {
      const at = iso(base - 400 * DAY + b * DAY)
      const prefix = `B${String.fromCharCode(65 + (b % 26))}${b >= 26 ? b : ''}`
      const board = { id: rid(), key_prefix: prefix, lists: [], tags: {} }
      ins.board.run(board.id, `Bench board ${b + 1}`, `Board ${b + 1} of the benchmark seed.`, prefix, SHAPE.cardsPerBoard + 1, people.owner.id, at, at)
      // The owner is on every board; each other user on about half of them.
      ins.member.run(board.id, people.owner.id, at)
      for (const u of people.others) if (rand() < 0.5) ins.member.run(board.id, u.id, at)
      LISTS.slice(0, SHAPE.listsPerBoard).forEach(([name, category], i) => {
        const id = rid()
        ins.list.run(id, board.id, name, i + 1, category, at, at)
        board.lists.push({ id, category })
      })
      for (const name of TAGS) {
        const id = rid()
        ins.tag.run(id, board.id, name, null, at, at)
        board.tags[name] = id
      }
      const listPos = board.lists.map(() => 0)
      for (let n = 1; n <= SHAPE.cardsPerBoard; n++) {
        const li = Math.floor(rand() * board.lists.length)
        const list = board.lists[li]
        const created = base - Math.floor(rand() * 365 * DAY)
        const updated = created + Math.floor(rand() * 30 * DAY)
        const done = list.category === 'completed'
        const title = `${pick(VERBS)} ${pick(NOUNS)} ${pick(QUALIFIERS)}`.trim() + ` #${n}`
        const words = Math.floor(rand() * 40)
        let description = ''
        for (let w = 0; w < words; w++) description += (w ? ' ' : '') + pick(WORDS)
        const r = rand()
        const due = r < 0.25 ? iso(created + Math.floor(rand() * 90) * DAY).slice(0, 10) : r < 0.5 ? iso(created + Math.floor(rand() * 90 * DAY)) : null
        const start = rand() < 0.3 ? iso(created + Math.floor(rand() * 10) * DAY).slice(0, 10) : null
        const id = rid()
        ins.card.run(
          id,
          board.id,
          list.id,
          n,
          `${prefix}-${n}`,
          title,
          description,
          ++listPos[li],
          Math.floor(rand() * 5),
          start,
          due,
          done ? 1 : 0,
          done ? iso(updated) : null,
          rand() < 0.02 ? 1 : 0,
          rand() < 0.01 ? 1 : 0,
          null,
          pick(userIds),
          iso(created),
          iso(updated),
        )
        const assignees = new Set()
        const na = rand() < 0.3 ? 0 : rand() < 0.7 ? 1 : 2
        while (assignees.size < na) assignees.add(pick(userIds))
        for (const u of assignees) ins.assignee.run(id, u)
        if (rand() < 0.2) ins.watcher.run(id, pick(userIds))
        for (const name of TAGS) if (rand() < TAG_ODDS[name]) ins.cardTag.run(id, board.tags[name])
        if (b === 0) firstBoardCards.push(id)
        cards++
      }
      boards.push(board)
    }
    // A custom field on the first board, `estimate` (a number), with a value on 9 cards in 10 (0 to 20, from the card's
    // place, so the cards' own random draws stay as they were): the `xattr` scenario filters and sorts by it.
    const field = rid()
    ins.xattrField.run(field, boards[0].id, iso(base), iso(base))
    firstBoardCards.forEach((id, n) => {
      if (n % 10 !== 9) ins.xattrValue.run(id, field, (n * 7919) % 21)
    })
  })()
  await db.close()
  // Reopened the way taskd opens it, so the seed holds what a restarted taskd leaves behind (e.g. the planner
  // statistics of `PRAGMA optimize`); the limit server then plans with the same statistics as taskd.
  const again = await openDatabase({ db: tmp, readWorkers: 0 })
  again.raw.pragma('wal_checkpoint(TRUNCATE)')
  await again.close()
  for (const f of [`${tmp}-wal`, `${tmp}-shm`]) fs.rmSync(f, { force: true })
  fs.renameSync(tmp, file)
  const meta = {
    key,
    token: people.token,
    owner: people.owner.id,
    users: userIds,
    boards,
    cards,
    seconds: Math.round((performance.now() - t0) / 100) / 10,
  }
  fs.writeFileSync(metaFile, `${JSON.stringify(meta, null, 2)}\n`)
  log(`seeded ${cards} cards in ${meta.seconds} s (${(fs.statSync(file).size / 1048576).toFixed(1)} MB)`)
  return { file, meta, cached: false }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { file, cached } = await ensureSeed({ force: process.argv.includes('--force') })
  console.log(`${cached ? 'cached' : 'built'}: ${path.relative(root, file)}`)
}

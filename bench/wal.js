// What a card create writes to SQLite, counted rather than timed (so the same on a quiet and a busy machine): WAL pages
// a card, by table and index, and the statements a create runs. Cards are made by --creators concurrent creators in
// process (a turn of the event loop after each, as a server's requests), so they share commits as a server's do.
//
//   npm run build && node bench/wal.js [--cards 5000] [--creators 32]
//
// The automatic checkpoint is off while cards are counted, so the WAL holds every page each commit wrote.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const arg = (name, def) => {
  const i = process.argv.indexOf(`--${name}`)
  return i > 0 ? Number(process.argv[i + 1]) : def
}
const cards = arg('cards', 5000)
const creators = arg('creators', 32)

const load = (p) => import(pathToFileURL(path.join(root, 'dist', 'src', p)).href)
const taskd = Object.assign(
  {},
  ...(await Promise.all(
    ['config.js', 'db/open.js', 'server.js', 'clock.js', 'resources/users/setup.js', 'resources/boards/service.js', 'resources/cards/service.js'].map(load),
  )),
)
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-bench-wal-'))
const file = path.join(dir, 'taskd.db')
const config = taskd.loadConfig({ db: file, logLevel: 'error' }, {})
const database = await taskd.openDatabase(config)
try {
  const deps = taskd.createDeps(database, config, taskd.systemClock)
  // Every statement the write connection prepares from now on is counted when it runs.
  const runs = new Map()
  const prepare = database.raw.prepare.bind(database.raw)
  database.raw.prepare = (text) => {
    const stmt = prepare(text)
    const counted =
      (f) =>
      (...args) => (runs.set(text, (runs.get(text) ?? 0) + 1), f.apply(stmt, args))
    return {
      reader: stmt.reader,
      readonly: stmt.readonly,
      all: counted(stmt.all),
      run: counted(stmt.run),
      get: counted(stmt.get),
      iterate: counted(stmt.iterate),
    }
  }
  const owner = await database.tx(async ({ q }) => {
    await taskd.ensureWorkspace(q, Date.now())
    return taskd.insertNewUser(q, Date.now(), { email: 'bench@localhost', name: 'Bench', role: 'owner' })
  })
  const actor = { user: owner, tokenId: 'bench', permission: 'write' }
  const { board } = await taskd.createBoard(deps, actor, { name: 'Bench' })
  const make = async (n) => {
    let made = 0
    await Promise.all(
      Array.from({ length: creators }, async () => {
        while (made < n) {
          made++
          await taskd.createCard(deps, actor, { board: board.id, title: `card ${made}` })
          await new Promise((r) => setImmediate(r))
        }
      }),
    )
  }
  await make(1000) // the indexes get some depth, the statements are prepared
  database.raw.pragma('wal_checkpoint(TRUNCATE)')
  database.raw.pragma('wal_autocheckpoint = 0')
  runs.clear()
  await make(cards)
  database.raw.prepare = prepare

  // The WAL: a 32-byte header, then frames of a 24-byte header (the page number first) and the page.
  const pageSize = database.raw.pragma('page_size', { simple: true })
  const wal = fs.readFileSync(`${file}-wal`)
  const frames = new Map()
  for (let at = 32; at + 24 + pageSize <= wal.length; at += 24 + pageSize) frames.set(wal.readUInt32BE(at), (frames.get(wal.readUInt32BE(at)) ?? 0) + 1)
  const owners = new Map(
    database.raw
      .prepare('SELECT name, pageno FROM dbstat')
      .all()
      .map((r) => [r.pageno, r.name]),
  )
  const byTree = new Map()
  for (const [page, n] of frames) byTree.set(owners.get(page) ?? '(free)', (byTree.get(owners.get(page) ?? '(free)') ?? 0) + n)
  const total = [...frames.values()].reduce((a, b) => a + b, 0)
  console.log(
    `${cards} cards by ${creators} creators: ${(total / cards).toFixed(2)} WAL pages a card (${((total * pageSize) / cards / 1024).toFixed(1)} KB), in ${byTree.size} tables and indexes`,
  )
  for (const [tree, n] of [...byTree].sort((a, b) => b[1] - a[1])) console.log(`  ${(n / cards).toFixed(2).padStart(6)}  ${tree}`)
  console.log('statements a card:')
  for (const [text, n] of [...runs].sort((a, b) => b[1] - a[1]))
    console.log(`  ${(n / cards).toFixed(2).padStart(6)}  ${text.replace(/\s+/g, ' ').slice(0, 140)}`)
} finally {
  await database.close()
  fs.rmSync(dir, { recursive: true, force: true })
}

// GET /v1/search: one ranked page of the cards, comments and notes whose text matches, through the full-text index
// (SQLite FTS5, PostgreSQL tsvector), over what the caller sees only, with the visibility inside the index's query; the
// index kept in step with every write; prefixes, phrases, snippets; hostile text never a 500; the MCP tool. One fixture
// for the file: each test that changes data uses words of its own.
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { mergeSearchIndexStep } from '../../src/db/full-text.js'
import { SearchQuery } from '../../src/resources/search/schema.js'
import { compactSearchIndex, search as searchWith } from '../../src/resources/search/service.js'
import { type seededApp, seededFixture } from '../helpers/app.js'
import { testDialect } from '../helpers/database.js'
import { dbGet } from '../helpers/db.js'
import { assertErrorShape } from '../helpers/scenarios.js'

async function fill(s: Awaited<ReturnType<typeof seededApp>>) {
  const { t, tokens } = s
  const post = async (path: string, token: string, body: object) => {
    const r = await t.req('POST', path, { token, body })
    assert.equal(r.status, 201, `${path}: ${r.text}`)
    return Object.values(r.body)[0] as { id: string; key: string; lists?: unknown }
  }
  const created = await t.req('POST', '/v1/boards', { token: tokens.outsider.write, body: { name: 'Other', key_prefix: 'OTH' } })
  const other = created.body.board as { id: string }
  const otherList = (created.body.lists as { id: string }[])[0]
  const m = tokens.member.write
  const card = (title: string, description = '', extra: object = {}) => post('/v1/cards', m, { board: s.board.id, title, description, ...extra })
  const titleCard = await card('Deploy the gateway', 'Check the routes first')
  const descCard = await card(
    'Weekly sync',
    'Talk about how and when to deploy the gateway safely, then the rest of the agenda, which makes this description a long one',
  )
  const prefixCard = await card('Deployment window')
  const phraseCard = await card('Release notes for March')
  const apartCard = await card('Notes on the release')
  const accentCard = await card('Café menu')
  const archivedCard = await card('Archived kumquat', '', { archived: true })
  const comment = await post('/v1/comments', m, { card: titleCard.id, body: 'Rollback plan if the deploy fails' })
  const note = await post('/v1/notes', m, { title: 'Gateway runbook', body: 'How we deploy', board: s.board.id })
  const privateNote = await post('/v1/notes', m, { title: 'My deploy ideas', body: '' })
  const theirs: { id: string }[] = []
  for (let i = 1; i <= 6; i++) theirs.push(await post('/v1/cards', tokens.outsider.write, { board: other.id, title: `Their deploy ${i}` }))
  return { other, otherList, titleCard, descCard, prefixCard, phraseCard, apartCard, accentCard, archivedCard, comment, note, privateNote, theirs }
}

type C = Awaited<ReturnType<typeof seededFixture<Awaited<ReturnType<typeof fill>>>>>
let c: C
before(async () => {
  c = await seededFixture(fill)
})
after(() => c?.t.close())

interface Result {
  type: string
  id: string
  title: string
  snippet: string
  card: { id: string; key: string; title: string } | null
  board: string | null
  score: number
}
interface ResultPage {
  page: number
  perPage: number
  totalItems: number
  totalPages: number
  totalCapped: boolean
  items: Result[]
}

const search = async (query: string, token = c.tokens.member.read): Promise<ResultPage> => {
  const r = await c.t.req('GET', `/v1/search?${query}`, { token })
  assert.equal(r.status, 200, `${query}: ${r.text}`)
  return r.body
}
const q = (text: string, rest = '') => `q=${encodeURIComponent(text)}${rest}`
const ids = (page: ResultPage) => page.items.map((i) => i.id)
const sorted = (list: string[]) => [...list].sort()

test('search ranks a title match above a match in the description only, with scores that fall, and answers the page envelope', async () => {
  const page = await search(q('deploy'))
  assert.deepEqual(
    sorted(ids(page)),
    sorted([c.titleCard.id, c.descCard.id, c.comment.id, c.note.id, c.privateNote.id]),
    'the member’s cards, comment and notes: not another board’s, not "Deployment" (a word of its own)',
  )
  assert.deepEqual([page.page, page.perPage, page.totalItems, page.totalPages], [1, 30, 5, 1])
  const at = (id: string) => ids(page).indexOf(id)
  assert.ok(at(c.titleCard.id) < at(c.descCard.id), 'the title match first')
  const scores = page.items.map((i) => i.score)
  assert.ok(
    scores.every((s, i) => s > 0 && (i === 0 || s <= scores[i - 1])),
    `scores positive and falling: ${scores}`,
  )
  const cards = await search(q('gateway', '&types=card'))
  assert.deepEqual(ids(cards), [c.titleCard.id, c.descCard.id], 'a short title match beats a long description match')
})

test('search shows each result’s title, card, board and a snippet with the matches between « and »', async () => {
  const byId = new Map((await search(q('deploy'))).items.map((i) => [i.id, i]))
  const ref = (x: { id: string; key: string }, title: string) => ({ id: x.id, key: x.key, title })
  assert.deepEqual(byId.get(c.titleCard.id), {
    ...byId.get(c.titleCard.id),
    type: 'card',
    title: 'Deploy the gateway',
    snippet: '«Deploy» the gateway',
    card: ref(c.titleCard, 'Deploy the gateway'),
    board: c.board.id,
  })
  const desc = byId.get(c.descCard.id)!
  assert.match(desc.snippet, /when to «deploy» the gateway/, 'the body’s words around the match')
  assert.deepEqual([desc.title, desc.card], ['Weekly sync', ref(c.descCard, 'Weekly sync')])
  assert.deepEqual(byId.get(c.comment.id), {
    ...byId.get(c.comment.id),
    type: 'comment',
    title: 'Deploy the gateway',
    snippet: 'Rollback plan if the «deploy» fails',
    card: ref(c.titleCard, 'Deploy the gateway'),
    board: c.board.id,
  })
  assert.deepEqual(byId.get(c.note.id), {
    ...byId.get(c.note.id),
    type: 'note',
    title: 'Gateway runbook',
    snippet: 'How we «deploy»',
    card: null,
    board: c.board.id,
  })
  assert.deepEqual(byId.get(c.privateNote.id), { ...byId.get(c.privateNote.id), type: 'note', snippet: 'My «deploy» ideas', card: null, board: null })
})

test('search: a trailing * is a prefix, a quoted phrase needs its words in order, words match whatever their case', async () => {
  assert.deepEqual(sorted(ids(await search(q('DEPLO*', '&types=card')))), sorted([c.titleCard.id, c.descCard.id, c.prefixCard.id]))
  const prefixed = await search(q('deplo*', '&types=card'))
  assert.equal(prefixed.items.find((i) => i.id === c.prefixCard.id)?.snippet, '«Deployment» window')
  assert.deepEqual(ids(await search(q('"release notes"'))), [c.phraseCard.id])
  assert.deepEqual(sorted(ids(await search(q('release notes')))), sorted([c.phraseCard.id, c.apartCard.id]), 'words, each anywhere')
  assert.deepEqual(ids(await search(q('"release no"*'))), [c.phraseCard.id], 'a phrase ending in a prefix')
  assert.deepEqual(ids(await search(q('notes march'))), [c.phraseCard.id], 'every word must match')
  assert.deepEqual(ids(await search(q('kumquat'))), [c.archivedCard.id], 'archived cards are found, as GET /v1/cards lists them')
  if (testDialect === 'sqlite') assert.deepEqual(ids(await search(q('cafe'))), [c.accentCard.id], 'accents aside (SQLite’s tokenizer)')
  assert.deepEqual(ids(await search(q('CAFÉ'))), [c.accentCard.id])
})

test('search: a prefix finds every word it begins, however many, never a scope word, and a word as soon as it is written', async () => {
  const m = c.tokens.member.write
  const post = async (body: object) => {
    const r = await c.t.req('POST', '/v1/cards', { token: m, body: { board: c.board.id, ...body } })
    assert.equal(r.status, 201, r.text)
    return r.body.card as { id: string }
  }
  // 40 words that begin with "zqa" (more than a prefix is read as words), one with "zqb", one in a title only.
  const many = await post({ title: 'Vocabulary', description: Array.from({ length: 40 }, (_, i) => `zqa${i}`).join(' ') })
  const one = await post({ title: 'Zqbolt' })
  assert.deepEqual(sorted(ids(await search(q('zq*')))), sorted([many.id, one.id]))
  assert.deepEqual(ids(await search(q('zqa*'))), [many.id])
  assert.deepEqual(ids(await search(q('ZQA3*'))), [many.id], 'zqa3 and zqa30 to zqa39')
  assert.deepEqual(ids(await search(q('zqb*'))), [one.id])
  assert.deepEqual(ids(await search(q('"zqa5 zqa"*'))), [many.id], 'a phrase ending in a prefix')
  assert.equal((await search(q('"zqa6 zqa5"*'))).totalItems, 0, 'a phrase: its words in that order only')
  assert.deepEqual(ids(await search(q('caf*'))), [c.accentCard.id], 'a word folded by the index (Café)')
  // An accent typed apart from its letter (e + U+0301), as pasted text often has it: the index's own reading of it.
  if (testDialect === 'sqlite') assert.deepEqual(ids(await search(q('cafe\u0301*'))), [c.accentCard.id], 'caf + e + a combining accent')
  // The scope words (b<board>, k<kind>, hidden, nob, o<creator>) begin with letters too, and are not text.
  for (const text of ['b*', 'k*', 'hid*', 'no*', 'o*', `b${c.board.id.slice(0, 4)}*`])
    assert.ok(
      (await search(q(text), c.tokens.admin.read)).items.every((i) => i.type !== 'card' || i.title !== 'Vocabulary'),
      text,
    )
  assert.equal((await search(q('hid*'), c.tokens.admin.read)).totalItems, 0)
  // A word written now is found by its prefix at once, and gone when it is.
  const r = await c.t.req('PATCH', `/v1/cards/${one.id}`, { token: m, body: { title: 'Zqxenon' } })
  assert.equal(r.status, 200, r.text)
  assert.deepEqual(ids(await search(q('zqx*'))), [one.id])
  assert.equal((await search(q('zqb*'))).totalItems, 0)
})

test('search: types and board narrow it; a board the caller does not see answers an empty page', async () => {
  assert.deepEqual(ids(await search(q('deploy', '&types=comment'))), [c.comment.id])
  assert.deepEqual(sorted(ids(await search(q('deploy', '&types=note')))), sorted([c.note.id, c.privateNote.id]))
  assert.deepEqual(sorted(ids(await search(q('deploy', '&types=card, note')))), sorted([c.titleCard.id, c.descCard.id, c.note.id, c.privateNote.id]))
  const onBoard = await search(q('deploy', `&board=${c.board.id}`))
  assert.deepEqual(sorted(ids(onBoard)), sorted([c.titleCard.id, c.descCard.id, c.comment.id, c.note.id]), 'the private note is on no board')
  assert.equal((await search(q('deploy', `&board=${c.other.id}`))).totalItems, 0)
  assert.equal((await search(q('deploy', '&board=nosuchboard'))).totalItems, 0)
  assert.equal((await search(q('deploy', `&board=${c.other.id}`), c.tokens.outsider.read)).totalItems, 6)
})

test('search applies visibility inside the query: another board’s records never show, never count and never shorten a page', async () => {
  const mine = [c.titleCard.id, c.descCard.id, c.comment.id, c.note.id, c.privateNote.id]
  const pages: ResultPage[] = []
  for (let n = 1; n <= 3; n++) pages.push(await search(q('deploy', `&per_page=2&page=${n}`)))
  assert.deepEqual(
    pages.map((p) => [p.items.length, p.totalItems, p.totalPages]),
    [
      [2, 5, 3],
      [2, 5, 3],
      [1, 5, 3],
    ],
  )
  assert.deepEqual(sorted(pages.flatMap(ids)), sorted(mine))
  assert.deepEqual((await search(q('deploy', '&page=4&per_page=2'))).items, [])
  const theirs = await search(q('deploy'), c.tokens.outsider.read)
  assert.deepEqual(sorted(ids(theirs)), sorted(c.theirs.map((x) => x.id)), 'the outsider: their own board only, no one else’s notes')
  // Owners and admins see every board, and every note on no board.
  const admin = await search(q('deploy', '&per_page=500'), c.tokens.admin.read)
  assert.deepEqual(sorted(ids(admin)), sorted([...mine, ...c.theirs.map((x) => x.id)]))
  // The member's view of a board they were taken off.
  assert.equal((await c.t.req('DELETE', `/v1/boards/${c.board.id}/members/${c.member.id}`, { token: c.tokens.owner.write })).status, 204)
  try {
    assert.deepEqual(ids(await search(q('deploy'))), [c.privateNote.id], 'only their own note on no board')
  } finally {
    const back = await c.t.req('POST', `/v1/boards/${c.board.id}/members`, { token: c.tokens.owner.write, body: { user: c.member.id } })
    assert.equal(back.status, 201, back.text)
  }
})

test('the index follows every write: create, edit, comment, move to another board, trash, restore, delete for good', async () => {
  const { t, tokens } = c
  const count = async (text: string, token = tokens.member.read) => (await search(q(text), token)).totalItems
  const req = async (method: string, path: string, body?: object, token = tokens.member.write) => {
    const r = await t.req(method, path, { token, body })
    assert.ok(r.status < 300, `${method} ${path}: ${r.text}`)
    return r.body
  }
  const card = (await req('POST', '/v1/cards', { board: c.board.id, title: 'Quokka habitat' })).card
  assert.equal(await count('quokka'), 1)
  await req('PATCH', `/v1/cards/${card.id}`, { title: 'Wombat habitat', description: 'Numbat notes' })
  assert.deepEqual([await count('quokka'), await count('wombat'), await count('numbat')], [0, 1, 1])
  const comment = (await req('POST', '/v1/comments', { card: card.id, body: 'Platypus sighting' })).comment
  assert.equal(await count('platypus'), 1)
  await req('PATCH', `/v1/comments/${comment.id}`, { body: 'Echidna sighting' })
  assert.deepEqual([await count('platypus'), await count('echidna')], [0, 1])
  // Moved to a board the member does not see: the card and its comment go with it.
  await req('POST', `/v1/cards/${card.id}/move`, { board: c.other.id, list: c.otherList.id }, tokens.owner.write)
  assert.deepEqual([await count('wombat'), await count('echidna')], [0, 0])
  assert.deepEqual([await count('wombat', tokens.outsider.read), await count('echidna', tokens.outsider.read)], [1, 1])
  const moved = (await search(q('echidna'), tokens.outsider.read)).items[0]
  assert.equal(moved.board, c.other.id)
  // In the trash: out of everyone's sight, its comment too; restored: back.
  await req('DELETE', `/v1/cards/${card.id}`, undefined, tokens.owner.write)
  assert.deepEqual([await count('wombat', tokens.owner.read), await count('echidna', tokens.owner.read)], [0, 0])
  await req('PATCH', `/v1/cards/${card.id}`, { trashed: false }, tokens.owner.write)
  assert.deepEqual([await count('wombat', tokens.outsider.read), await count('echidna', tokens.outsider.read)], [1, 1])
  // Deleted for good: gone from the index, with its comment.
  await req('DELETE', `/v1/cards/${card.id}?permanent=true`, undefined, tokens.owner.write)
  assert.deepEqual([await count('wombat', tokens.owner.read), await count('echidna', tokens.owner.read)], [0, 0])
  const left = await dbGet<{ n: number }>(t.deps.db, 'SELECT count(*) AS n FROM search_docs WHERE record_id IN (?, ?)', card.id, comment.id)
  assert.equal(Number(left!.n), 0, 'no index row is left behind')
  // A comment deleted.
  const other = (await req('POST', '/v1/comments', { card: c.titleCard.id, body: 'Dugong alert' })).comment
  assert.equal(await count('dugong'), 1)
  await req('DELETE', `/v1/comments/${other.id}`)
  assert.equal(await count('dugong'), 0)
})

test('the index follows notes (edit, off the board, deleted) and a board trashed and deleted for good', async () => {
  const { t, tokens } = c
  const count = async (text: string, token = tokens.member.read) => (await search(q(text), token)).totalItems
  const req = async (method: string, path: string, body?: object, token = tokens.member.write) => {
    const r = await t.req(method, path, { token, body })
    assert.ok(r.status < 300, `${method} ${path}: ${r.text}`)
    return r.body
  }
  const note = (await req('POST', '/v1/notes', { title: 'Axolotl care', body: 'Water', board: c.board.id })).note
  assert.deepEqual([await count('axolotl'), await count('axolotl', tokens.admin.read)], [1, 1])
  await req('PATCH', `/v1/notes/${note.id}`, { title: 'Capybara care', body: 'Tapir food' })
  assert.deepEqual([await count('axolotl'), await count('capybara'), await count('tapir')], [0, 1, 1])
  await req('PATCH', `/v1/notes/${note.id}`, { board: null })
  assert.deepEqual([await count('capybara'), await count('capybara', tokens.owner.read), await count('capybara', tokens.outsider.read)], [1, 1, 0])
  await req('DELETE', `/v1/notes/${note.id}`)
  assert.equal(await count('capybara'), 0)

  const made = await t.req('POST', '/v1/boards', { token: tokens.member.write, body: { name: 'Temp', key_prefix: 'TMP' } })
  const board = made.body.board
  const card = (await req('POST', '/v1/cards', { board: board.id, title: 'Narwhal tusk' })).card
  const comment = (await req('POST', '/v1/comments', { card: card.id, body: 'Narwhal pod' })).comment
  const onBoard = (await req('POST', '/v1/notes', { title: 'Narwhal facts', board: board.id })).note
  assert.equal(await count('narwhal'), 3)
  await req('DELETE', `/v1/boards/${board.id}`)
  assert.deepEqual([await count('narwhal'), await count('narwhal', tokens.owner.read)], [0, 0], 'a board in the trash: out of sight')
  await req('POST', `/v1/boards/${board.id}/restore`)
  assert.equal(await count('narwhal'), 3)
  await req('DELETE', `/v1/boards/${board.id}?permanent=true`, undefined, tokens.owner.write)
  assert.equal(await count('narwhal', tokens.owner.read), 0)
  const left = await dbGet<{ n: number }>(t.deps.db, 'SELECT count(*) AS n FROM search_docs WHERE record_id IN (?, ?, ?)', card.id, comment.id, onBoard.id)
  assert.equal(Number(left!.n), 0, 'the purge took the index rows with the records')
})

test('search: hostile text never reaches the index’s query syntax: punctuation alone is an empty page, a fuzz of texts never a 500', async () => {
  for (const text of ['+++', '"', '""', '*', '"*"', '(', ')', ':', '^', '-', '\\', "'", '%', '_', '…', '😀', '—', ' " " ', '*:*', '<->', '!&|'])
    assert.deepEqual(await search(q(text)), { page: 1, perPage: 30, totalItems: 0, totalPages: 0, totalCapped: false, items: [] }, text)
  const syntax = [
    'deploy"',
    '"deploy',
    'NEAR(deploy gateway)',
    'deploy AND',
    'OR deploy',
    'NOT deploy',
    'title:deploy',
    '{title}:deploy',
    '{title body} : deploy',
    'scope:hidden',
    'kcard',
    '^deploy',
    '-deploy',
    'deploy -gateway',
    'deploy:*',
    "deploy' | 'gateway",
    'deplo*:*',
    'de*ploy*',
    'deploy & gateway',
    '!deploy',
    'deploy <-> gateway',
    '(deploy',
    'deploy)',
    `b${c.other.id}`,
    'nob',
  ]
  for (const text of syntax) {
    const r = await c.t.req('GET', `/v1/search?${q(text)}`, { token: c.tokens.member.read })
    assert.equal(r.status, 200, `${text}: ${r.text}`)
    assert.ok(
      r.body.items.every((i: Result) => !c.theirs.some((x) => x.id === i.id)),
      `${text}: nothing of another board`,
    )
  }
  // The scope words of the index are not searchable text.
  for (const text of ['hidden', 'kcard', 'nob', `b${c.board.id}`]) assert.equal((await search(q(text), c.tokens.admin.read)).totalItems, 0, text)
  // A seeded fuzz: any mix of words, quotes, stars, operators, punctuation and other scripts.
  let seed = 0x5eed
  const rand = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff
    return seed / 0x80000000
  }
  const pieces = [
    'deploy',
    'gate',
    'NEAR',
    'AND',
    'OR',
    'NOT',
    'é',
    'ß',
    '字',
    'Ж',
    '😀',
    '\u0301',
    '"',
    '*',
    '(',
    ')',
    ':',
    '^',
    '-',
    '+',
    '{',
    '}',
    "'",
    '\\',
    '&',
    '|',
    '!',
    '<',
    '>',
    '.',
    ',',
    ';',
    '%',
    '_',
    '#',
    '@',
    '~',
    '/',
    '0',
    '42',
    ' ',
    ' ',
    ' ',
  ]
  for (let i = 0; i < 100; i++) {
    let text = ''
    const n = 1 + Math.floor(rand() * 12)
    for (let k = 0; k < n; k++) text += pieces[Math.floor(rand() * pieces.length)]
    const token = i % 2 ? c.tokens.member.read : c.tokens.admin.read
    const r = await c.t.req('GET', `/v1/search?${q(text)}${i % 3 ? '' : '&types=card,note'}`, { token })
    assert.ok(r.status === 200 || (r.status === 400 && text.trim() === ''), `${JSON.stringify(text)}: ${r.status} ${r.text}`)
  }
})

test('search refuses a missing or blank text, unknown types, a page size past 500, and needs a token', async () => {
  for (const query of [
    '',
    'q=',
    'q=%20%20',
    'q=x&types=cards',
    'q=x&types=card,board',
    'q=x&per_page=501',
    'q=x&page=0',
    `q=${'x'.repeat(201)}`,
    'q=x&sort=title',
  ]) {
    const r = await c.t.req('GET', `/v1/search?${query}`, { token: c.tokens.member.read })
    assert.equal(r.status, 400, `${query}: ${r.text}`)
    assertErrorShape(r.body)
  }
  assert.equal((await c.t.req('GET', '/v1/search?q=x')).status, 401)
  // A page far past the end is an empty page with the total, however far.
  for (const page of ['2', '1000000', String(Number.MAX_SAFE_INTEGER)]) {
    const r = await search(`${q('deploy')}&page=${page}&per_page=500`)
    assert.deepEqual([r.items.length, r.totalItems > 0], [0, true], page)
  }
})

test('a broad text is counted and ranked within bounds: the exact total up to the bound, past it an estimate marked totalCapped, a title match still first', async () => {
  const { t, tokens } = c
  const post = async (path: string, body: object, token = tokens.member.write) => {
    const r = await t.req(path.startsWith('PATCH') ? 'PATCH' : 'POST', path.replace(/^PATCH /, ''), { token, body })
    assert.ok(r.status < 300, `${path}: ${r.text}`)
    return Object.values(r.body)[0] as { id: string; key: string }
  }
  // The card named by the word is the oldest in the index's order on both dialects (made first, renamed last: SQLite
  // keeps its rowid, PostgreSQL writes the row anew at the end), then five newer cards that mention it in passing, and
  // a newer card named by it on a board the member does not see.
  const named = await post('/v1/cards', { board: c.board.id, title: 'Nothing yet' })
  const passing: string[] = []
  for (let i = 1; i <= 5; i++)
    passing.push(
      (await post('/v1/cards', { board: c.board.id, title: `Sync ${i}`, description: `We spoke of the ocelot and then of the agenda, item ${i}` })).id,
    )
  const theirs = await post('/v1/cards', { board: c.other.id, title: 'Ocelot' }, tokens.outsider.write)
  await post(`PATCH /v1/cards/${named.id}`, { title: 'Ocelot enclosure' })

  // Within the default bounds: every match counted and ranked, the title match first.
  const all = await search(q('ocelot'))
  assert.deepEqual([all.totalItems, all.totalPages, all.totalCapped], [6, 1, false])
  assert.deepEqual(sorted(ids(all)), sorted([named.id, ...passing]))
  assert.equal(all.items[0].id, named.id, 'the title match first')

  // Bounds of 3 matches and 2 more title matches: past the bound, an estimate; the card named by the word still first.
  const user = await t.deps.db.q.selectFrom('users').selectAll().where('id', '=', c.member.id).executeTakeFirstOrThrow()
  const actor = { user, tokenId: '', permission: 'read' as const }
  const bounds = { matches: 3, titles: 2 }
  const seen: string[] = []
  const first = await searchWith(t.deps, actor, SearchQuery.parse({ q: 'ocelot', per_page: '2' }), bounds)
  assert.equal(first.totalCapped, true)
  assert.equal(first.items[0].id, named.id, 'the title match first, though older than the matches read')
  for (let n = 1; n <= first.totalPages + 1; n++) {
    const p = await searchWith(t.deps, actor, SearchQuery.parse({ q: 'ocelot', per_page: '2', page: String(n) }), bounds)
    assert.deepEqual([p.totalItems, p.totalPages, p.totalCapped], [first.totalItems, first.totalPages, true], `page ${n}`)
    if (n > first.totalPages) assert.deepEqual(p.items, [], 'past the ranked results: an empty page, the same counts')
    seen.push(...ids(p))
  }
  assert.equal(new Set(seen).size, seen.length, 'no result twice across the pages')
  assert.ok(seen.length >= 4 && seen.length <= 6, `the bounded matches and the title matches past them: ${seen.length}`)
  assert.ok(!seen.includes(theirs.id), 'another board’s match is never read')
  assert.ok(first.totalPages === Math.ceil(seen.length / 2))
  assert.ok(first.totalItems >= seen.length && first.totalItems <= 60, `an estimate of the matches the member sees: ${first.totalItems}`)
  const scores = (await searchWith(t.deps, actor, SearchQuery.parse({ q: 'ocelot', per_page: '10' }), bounds)).items.map((i) => i.score)
  assert.ok(
    scores.every((s, i) => i === 0 || s <= scores[i - 1]),
    `scores falling: ${scores}`,
  )

  // The outsider: their one match, exact, whatever the bounds.
  const outsiderUser = await t.deps.db.q.selectFrom('users').selectAll().where('id', '=', c.outsider.id).executeTakeFirstOrThrow()
  const theirsPage = await searchWith(t.deps, { user: outsiderUser, tokenId: '', permission: 'read' }, SearchQuery.parse({ q: 'ocelot' }), bounds)
  assert.deepEqual([ids(theirsPage), theirsPage.totalItems, theirsPage.totalCapped], [[theirs.id], 1, false])
})

test('housekeeping merges the index into one segment (SQLite), and search answers the same', async () => {
  const before = await search(q('deploy', '&per_page=500'), c.tokens.admin.read)
  await compactSearchIndex(c.t.deps, () => false)
  assert.equal(await c.t.deps.db.tx(({ q }) => mergeSearchIndexStep(q, 200)), false, 'nothing left to merge')
  assert.deepEqual(await search(q('deploy', '&per_page=500'), c.tokens.admin.read), before)
})

test('the MCP search tool answers as the route does', async () => {
  const client = new Client({ name: 'taskd-test', version: '1.0.0' })
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${c.t.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${c.tokens.member.read}` } } }),
  )
  try {
    const r = (await client.callTool({ name: 'search', arguments: { q: 'deploy', types: ['card', 'comment'], per_page: 2 } })) as {
      isError?: boolean
      structuredContent?: ResultPage
    }
    assert.ok(!r.isError, JSON.stringify(r))
    assert.deepEqual(r.structuredContent, await search(q('deploy', '&types=card,comment&per_page=2')))
    assert.equal(r.structuredContent!.totalItems, 3)
    const bad = (await client.callTool({ name: 'search', arguments: { q: 'x', types: ['cards'] } })) as { isError?: boolean }
    assert.equal(bad.isError, true)
  } finally {
    await client.close()
  }
})

// GET /v1/search: a text looked up in cards, comments and notes, only where the caller sees them, a page per type.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { seededApp } from '../helpers/app.js'
import { assertErrorShape } from '../helpers/scenarios.js'

async function fixture() {
  const s = await seededApp()
  const { t, tokens } = s
  const other = (await t.req('POST', '/v1/boards', { token: tokens.outsider.write, body: { name: 'Other', key_prefix: 'OTH' } })).body.board
  const post = async (path: string, token: string, body: object) => {
    const r = await t.req('POST', path, { token, body })
    assert.equal(r.status, 201, r.text)
    t.clock.advance(1000) // distinct update times: search answers newest first
    return Object.values(r.body)[0] as { id: string }
  }
  const card = await post('/v1/cards', tokens.member.write, { board: s.board.id, title: 'Quarterly report', description: 'Numbers for Q3' })
  const byDescription = await post('/v1/cards', tokens.member.write, { board: s.board.id, title: 'Slides', description: 'For the REPORT meeting' })
  const percent = await post('/v1/cards', tokens.member.write, { board: s.board.id, title: 'Grow 50% "fast" \\ now' })
  const comment = await post('/v1/comments', tokens.admin.write, { card: card.id, body: 'The report is late' })
  const note = await post('/v1/notes', tokens.member.write, { title: 'Report template', body: 'Use this', board: s.board.id })
  const privateNote = await post('/v1/notes', tokens.member.write, { title: 'My report ideas', body: '' })
  const hidden = await post('/v1/cards', tokens.outsider.write, { board: other.id, title: 'Their report' })
  return { ...s, other, card, byDescription, percent, comment, note, privateNote, hidden }
}

const ids = (page: { items: { id: string }[] }) => page.items.map((i) => i.id).sort()

test('search finds the text in titles, descriptions and bodies the caller sees, most recently updated first', async () => {
  const c = await fixture()
  try {
    const r = await c.t.req('GET', '/v1/search?q=report', { token: c.tokens.member.read })
    assert.equal(r.status, 200, r.text)
    assert.equal(r.body.q, 'report')
    assert.deepEqual(ids(r.body.cards), [c.card.id, c.byDescription.id].sort())
    assert.deepEqual(ids(r.body.comments), [c.comment.id])
    assert.deepEqual(ids(r.body.notes), [c.note.id, c.privateNote.id].sort())
    assert.deepEqual(
      r.body.cards.items.map((i: { id: string }) => i.id),
      [c.byDescription.id, c.card.id],
      'newest update first',
    )
    // The outsider sees their own card only; the member's private note is theirs alone.
    const theirs = (await c.t.req('GET', '/v1/search?q=report', { token: c.tokens.outsider.read })).body
    assert.deepEqual(ids(theirs.cards), [c.hidden.id])
    assert.equal(theirs.comments.totalItems, 0)
    assert.equal(theirs.notes.totalItems, 0)
  } finally {
    await c.t.close()
  }
})

test('search: types, board and paging narrow it; quotes, backslashes and % are taken literally', async () => {
  const c = await fixture()
  try {
    const get = async (query: string) => {
      const r = await c.t.req('GET', `/v1/search?${query}`, { token: c.tokens.member.read })
      assert.equal(r.status, 200, r.text)
      return r.body
    }
    const onlyCards = await get('q=report&types=cards')
    assert.deepEqual(Object.keys(onlyCards).sort(), ['cards', 'q'])
    const paged = await get('q=report&types=cards&per_page=1&page=2')
    assert.equal(paged.cards.totalItems, 2)
    assert.equal(paged.cards.totalPages, 2)
    assert.deepEqual(ids(paged.cards), [c.card.id])
    const onOther = await get(`q=report&board=${c.other.id}`)
    assert.equal(onOther.cards.totalItems, 0, "a board the member doesn't see gives nothing")
    const onBoard = await get(`q=report&board=${c.board.id}`)
    assert.deepEqual(ids(onBoard.notes), [c.note.id], 'the private note is on no board')
    assert.deepEqual(ids(onBoard.comments), [c.comment.id])
    // Comments of a trashed card are out of sight, like the card.
    assert.equal((await c.t.req('DELETE', `/v1/cards/${c.card.id}`, { token: c.tokens.member.write })).status, 204)
    assert.equal((await get('q=report&types=comments')).comments.totalItems, 0)
    for (const q of ['50%', '"fast"', '\\ now']) assert.deepEqual(ids((await get(`q=${encodeURIComponent(q)}&types=cards`)).cards), [c.percent.id], q)
    assert.equal((await get('q=5_%25&types=cards')).cards.totalItems, 0, '% and _ are no wildcards')
  } finally {
    await c.t.close()
  }
})

test('search refuses a missing or blank text, unknown types and a page size past 500', async () => {
  const c = await fixture()
  try {
    for (const query of ['', 'q=', 'q=%20%20', 'q=x&types=cards,boards', 'q=x&per_page=501', 'q=x&page=0', `q=${'x'.repeat(201)}`]) {
      const r = await c.t.req('GET', `/v1/search?${query}`, { token: c.tokens.member.read })
      assert.equal(r.status, 400, `${query}: ${r.text}`)
      assertErrorShape(r.body)
    }
    assert.equal((await c.t.req('GET', '/v1/search?q=x')).status, 401)
  } finally {
    await c.t.close()
  }
})

// Note publications through HTTP: publishing with the note's rights, the public URL without a token (JSON, and an
// HTML page that carries no script), refreshing, unpublishing and deleting (404 at once), the board's trash, the
// slug's randomness, and the list of publications of the notes the caller sees.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { seededApp } from '../helpers/app.js'
import { runScenarios } from '../helpers/scenarios.js'

async function fixture() {
  const s = await seededApp()
  const { t, tokens } = s
  await t.req('POST', '/v1/boards', { token: tokens.outsider.write, body: { name: 'Other', key_prefix: 'OTH' } })
  const note = (
    await t.req('POST', '/v1/notes', { token: tokens.member.write, body: { title: 'Release plan', body: '# Steps\n\n1. Build\n2. Ship', board: s.board.id } })
  ).body.note
  const own = (await t.req('POST', '/v1/notes', { token: tokens.member.write, body: { title: 'Diary', body: 'private' } })).body.note
  return { ...s, note, own }
}
type C = Awaited<ReturnType<typeof fixture>>

const publish = async (c: C, note: string, token = c.tokens.member.write) => c.t.req('POST', '/v1/note-publications', { token, body: { note } })
/** The public URL's path, asked without a token. */
const open = (c: C, url: string, accept?: string) => c.t.req('GET', new URL(url).pathname, accept ? { headers: { accept } } : {})

runScenarios<C>('note publications', fixture, [
  {
    name: 'a member publishes a note of their board; nothing is emitted',
    method: 'POST',
    path: '/v1/note-publications',
    token: (c) => c.tokens.member.write,
    body: (c: C) => ({ note: c.note.id }),
    status: 201,
    events: [],
    expect: (c: C) => ({
      note_publication: { note: c.note.id, title: 'Release plan', created_by: { id: c.member.id }, created: '2026-11-21T12:00:00.000Z' },
    }),
    after: (_c, r) => {
      const p = r.body.note_publication
      assert.match(p.slug, /^[0-9A-Za-z]{32}$/)
      assert.equal(p.url, `http://taskd.test/v1/note-publications/public/${p.slug}`)
    },
  },
  {
    name: 'the author publishes a board-less note',
    method: 'POST',
    path: '/v1/note-publications',
    token: (c) => c.tokens.member.write,
    body: (c: C) => ({ note: c.own.id }),
    status: 201,
  },
  {
    name: 'an admin publishes someone’s board-less note (admins may edit it)',
    method: 'POST',
    path: '/v1/note-publications',
    token: (c) => c.tokens.admin.write,
    body: (c: C) => ({ note: c.own.id }),
    status: 201,
  },
  {
    name: 'a member of another board cannot: 404',
    method: 'POST',
    path: '/v1/note-publications',
    token: (c) => c.tokens.outsider.write,
    body: (c: C) => ({ note: c.note.id }),
    status: 404,
  },
  {
    name: 'another member cannot publish a board-less note: 404',
    method: 'POST',
    path: '/v1/note-publications',
    token: (c) => c.tokens.outsider.write,
    body: (c: C) => ({ note: c.own.id }),
    status: 404,
  },
  {
    name: 'a read-only token cannot: 403',
    method: 'POST',
    path: '/v1/note-publications',
    token: (c) => c.tokens.member.read,
    body: (c: C) => ({ note: c.note.id }),
    status: 403,
  },
  { name: 'no note: 422', method: 'POST', path: '/v1/note-publications', token: (c) => c.tokens.member.write, body: {}, status: 422, field: 'note' },
])

test('the public URL: JSON without a token, only public fields; republishing refreshes it; unpublishing ends it at once', async () => {
  const c = await fixture()
  try {
    const { t, tokens } = c
    const first = await publish(c, c.note.id)
    assert.equal(first.status, 201, first.text)
    const pub = first.body.note_publication

    const json = await open(c, pub.url)
    assert.equal(json.status, 200, json.text)
    assert.deepEqual(json.body, {
      note_publication: { title: 'Release plan', body: '# Steps\n\n1. Build\n2. Ship', published: pub.created, updated: pub.created },
    })
    assert.match(json.headers.get('content-type') ?? '', /application\/json/)
    assert.equal(json.headers.get('cache-control'), 'no-store')
    assert.equal(json.headers.get('x-content-type-options'), 'nosniff')
    assert.equal(json.headers.get('referrer-policy'), 'no-referrer')

    // The copy is a copy: editing the note changes nothing public until it is published again.
    t.clock.advance(60_000)
    assert.equal((await t.req('PATCH', `/v1/notes/${c.note.id}`, { token: tokens.member.write, body: { title: 'Release plan v2', body: 'new' } })).status, 200)
    assert.equal((await open(c, pub.url)).body.note_publication.title, 'Release plan')
    const again = await publish(c, c.note.id, tokens.admin.write)
    assert.equal(again.status, 200, again.text)
    assert.deepEqual(again.body.note_publication, { ...pub, title: 'Release plan v2', updated: '2026-11-21T12:01:00.000Z' }, 'same id, slug and URL')
    assert.deepEqual((await open(c, pub.url)).body.note_publication, {
      title: 'Release plan v2',
      body: 'new',
      published: pub.created,
      updated: '2026-11-21T12:01:00.000Z',
    })

    // Unpublishing needs the note's rights; then the URL is gone for JSON and HTML alike.
    assert.equal((await t.req('DELETE', `/v1/note-publications/${pub.id}`, { token: tokens.outsider.write })).status, 404)
    assert.equal((await t.req('DELETE', `/v1/note-publications/${pub.id}`, { token: tokens.member.read })).status, 403)
    assert.equal((await t.req('DELETE', `/v1/note-publications/${pub.id}`, { token: tokens.member.write })).status, 204)
    const gone = await open(c, pub.url)
    assert.equal(gone.status, 404)
    assert.deepEqual(gone.body.error.code, 'not_found')
    assert.equal(gone.headers.get('cache-control'), 'no-store')
    const goneHtml = await open(c, pub.url, 'text/html')
    assert.equal(goneHtml.status, 404)
    assert.match(goneHtml.headers.get('content-type') ?? '', /text\/html/)
    assert.doesNotMatch(goneHtml.text, /Release plan/)
    assert.equal((await t.req('GET', `/v1/note-publications/${pub.id}`, { token: tokens.member.read })).status, 404)

    // Published again: a new slug, so the old URL stays dead.
    const fresh = await publish(c, c.note.id)
    assert.equal(fresh.status, 201)
    assert.notEqual(fresh.body.note_publication.slug, pub.slug)
    assert.equal((await open(c, pub.url)).status, 404)
    assert.equal((await open(c, fresh.body.note_publication.url)).status, 200)

    for (const path of ['/v1/note-publications/public/nope', '/v1/note-publications/public/%00', `/v1/note-publications/public/${'x'.repeat(300)}`]) {
      const r = await t.req('GET', path)
      assert.equal(r.status, 404, path)
      assert.equal(r.body.error.code, 'not_found')
    }
    const post = await t.req('POST', new URL(fresh.body.note_publication.url).pathname, { body: {} })
    assert.equal(post.status, 405)
    assert.equal(post.headers.get('allow'), 'GET, HEAD, OPTIONS')
  } finally {
    await c.t.close()
  }
})

test('a deleted note takes its publication along; a board in the trash hides it until restored', async () => {
  const c = await fixture()
  try {
    const { t, tokens } = c
    const pub = (await publish(c, c.note.id)).body.note_publication
    const own = (await publish(c, c.own.id)).body.note_publication

    assert.equal((await t.req('DELETE', `/v1/boards/${c.board.id}`, { token: tokens.owner.write })).status, 204)
    assert.equal((await open(c, pub.url)).status, 404, 'in the trash')
    assert.equal((await open(c, own.url)).status, 200, 'a board-less note is on no board')
    assert.equal((await t.req('POST', `/v1/boards/${c.board.id}/restore`, { token: tokens.owner.write })).status, 200)
    assert.equal((await open(c, pub.url)).status, 200, 'restored')

    assert.equal((await t.req('DELETE', `/v1/notes/${c.note.id}`, { token: tokens.member.write })).status, 204)
    assert.equal((await open(c, pub.url)).status, 404)
    assert.equal((await t.req('GET', `/v1/note-publications/${pub.id}`, { token: tokens.owner.read })).status, 404)
  } finally {
    await c.t.close()
  }
})

test('slugs: 32 base62 characters (about 190 random bits), all different, independent of the ids', async () => {
  const c = await fixture()
  try {
    const slugs: string[] = []
    for (let i = 0; i < 20; i++) {
      const note = (await c.t.req('POST', '/v1/notes', { token: c.tokens.member.write, body: { title: `n${i}`, board: c.board.id } })).body.note
      const pub = (await publish(c, note.id)).body.note_publication
      assert.match(pub.slug, /^[0-9A-Za-z]{32}$/)
      assert.ok(!pub.slug.includes(note.id) && !pub.slug.includes(pub.id))
      slugs.push(pub.slug)
    }
    assert.equal(new Set(slugs).size, slugs.length)
    // 640 uniform draws from 62 symbols miss more than 7 of them with a probability far below 1e-9.
    assert.ok(new Set(slugs.join('')).size >= 55, 'the characters spread over the whole alphabet')
  } finally {
    await c.t.close()
  }
})

test('the list holds the publications of the notes the caller sees, with filter, sort and expand', async () => {
  const c = await fixture()
  try {
    const { t, tokens } = c
    const pub = (await publish(c, c.note.id)).body.note_publication
    t.clock.advance(1000)
    await publish(c, c.own.id)
    const list = async (query: string, token: string) => {
      const r = await t.req('GET', `/v1/note-publications?${query}`, { token })
      assert.equal(r.status, 200, r.text)
      return r.body
    }
    const titles = (page: { items: { title: string }[] }) => page.items.map((p) => p.title)
    assert.deepEqual(titles(await list('', tokens.member.read)), ['Diary', 'Release plan'], 'latest first')
    assert.deepEqual(titles(await list('sort=title', tokens.owner.read)), ['Diary', 'Release plan'])
    assert.deepEqual(titles(await list('', tokens.outsider.read)), [])
    assert.deepEqual(titles(await list(`filter=${encodeURIComponent('note.board = null')}`, tokens.admin.read)), ['Diary'])
    assert.deepEqual(titles(await list(`filter=${encodeURIComponent('title ~ "release"')}`, tokens.member.read)), ['Release plan'])
    const expanded = await list(`expand=note&filter=${encodeURIComponent(`id = "${pub.id}"`)}`, tokens.member.read)
    assert.equal(expanded.items[0].expand.note.id, c.note.id)
    const one = await t.req('GET', `/v1/note-publications/${pub.id}?expand=note`, { token: tokens.admin.read })
    assert.equal(one.body.note_publication.expand.note.title, 'Release plan')
    assert.equal((await t.req('GET', `/v1/note-publications/${pub.id}`, { token: tokens.outsider.read })).status, 404)
  } finally {
    await c.t.close()
  }
})

/** Every tag of a page: its name and attributes (quoted, unquoted or bare). */
function tagsOf(html: string): { name: string; attrs: [string, string][] }[] {
  return [...html.matchAll(/<([a-zA-Z][\w-]*)((?:\s+[^\s=>]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+))?)*)\s*\/?>/g)].map((m) => ({
    name: m[1].toLowerCase(),
    attrs: [...m[2].matchAll(/([^\s=>]+)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s>]+))?/g)].map((a) => [a[1].toLowerCase(), (a[2] ?? '').replace(/^["']|["']$/g, '')]),
  }))
}

const SAFE_TAGS = new Set([
  'html',
  'head',
  'meta',
  'title',
  'style',
  'body',
  'main',
  'article',
  'h1',
  'h2',
  'p',
  'ul',
  'ol',
  'li',
  'a',
  'code',
  'pre',
  'em',
  'strong',
  'img',
])

test('the HTML page renders Markdown and carries no script, whatever the title and body hold', async () => {
  const c = await fixture()
  try {
    const { t, tokens } = c
    const hostile = [
      '<script>alert(1)</script>',
      '<img src=x onerror=alert(1)>',
      '[a](javascript:alert(1))',
      '[b](JAVASCRIPT:alert(1))',
      '[c](&#106;avascript:alert(1))',
      '[d](  javascript:alert(1))',
      '[e](vbscript:msgbox(1))',
      '[f](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
      '![g](javascript:alert(1))',
      '<svg onload=alert(1)>',
      '<iframe src="https://example.com"></iframe>',
      '<a href="javascript:alert(1)">h</a>',
      '[i](https://example.com "x\\" onmouseover=\\"alert(1)")',
      '<javascript:alert(1)>',
    ].join('\n\n')
    const note = (
      await t.req('POST', '/v1/notes', { token: tokens.member.write, body: { title: '"><script>alert(1)</script>', body: hostile, board: c.board.id } })
    ).body.note
    const pub = (await publish(c, note.id)).body.note_publication
    const page = await open(c, pub.url, 'text/html,application/xhtml+xml,*/*;q=0.8')
    assert.equal(page.status, 200, page.text)
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/)
    assert.match(page.headers.get('content-security-policy') ?? '', /^default-src 'none'; style-src 'unsafe-inline'; img-src https: data:/)
    assert.equal(page.headers.get('x-content-type-options'), 'nosniff')
    assert.equal(page.headers.get('referrer-policy'), 'no-referrer')
    assert.equal(page.headers.get('cache-control'), 'no-store')

    const html = page.text
    assert.doesNotMatch(html, /<script/i)
    assert.doesNotMatch(html, /<(iframe|svg|object|embed|form|base)/i)
    const tags = tagsOf(html)
    for (const tag of tags) {
      assert.ok(SAFE_TAGS.has(tag.name), `unexpected <${tag.name}>`)
      for (const [name, value] of tag.attrs) {
        assert.ok(!name.startsWith('on'), `<${tag.name} ${name}=...>`)
        if (name === 'href' || name === 'src') assert.match(value, /^(https?:|mailto:|#)/i, `<${tag.name} ${name}="${value}">`)
      }
    }
    // Nothing a browser could read as an opening tag hides between the ones found.
    assert.equal(html.match(/</g)!.length, html.match(/<\/[a-z0-9]+>|<!doctype html>/gi)!.length + tags.length)
    assert.match(html, /<title>&quot;&gt;&lt;script&gt;alert\(1\)&lt;\/script&gt;<\/title>/, 'the title is escaped')
    assert.match(html, /&lt;img src=x onerror=alert\(1\)&gt;/, 'raw HTML shows as text')

    const harmless = (
      await t.req('POST', '/v1/notes', {
        token: tokens.member.write,
        body: {
          title: 'Guide',
          body: '## Setup\n\n- one\n- two\n\nSee [the site](https://example.com/a?b=1&c=2) and `npm test`.\n\n```\nconst x = 1 < 2\n```\n',
          board: c.board.id,
        },
      })
    ).body.note
    const ok = (await open(c, (await publish(c, harmless.id)).body.note_publication.url, 'text/html')).text
    assert.match(ok, /<h1>Guide<\/h1>/)
    assert.match(ok, /<h2>Setup<\/h2>/)
    assert.match(ok, /<ul>\s*<li>one<\/li>\s*<li>two<\/li>\s*<\/ul>/)
    assert.match(ok, /<a href="https:\/\/example\.com\/a\?b=1&amp;c=2" rel="nofollow noopener noreferrer">the site<\/a>/)
    assert.match(ok, /<code>npm test<\/code>/)
    assert.match(ok, /<pre><code>const x = 1 &lt; 2\n<\/code><\/pre>/)
  } finally {
    await c.t.close()
  }
})

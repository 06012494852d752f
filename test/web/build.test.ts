// The web app's build and how taskd serves it: the committed API types match the OpenAPI document, the first board
// view's JavaScript stays within its budget, and / serves the app with its Content-Security-Policy while the API, the
// docs and the operational routes keep their own answers.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import zlib from 'node:zlib'
import { after, before, describe, test } from 'node:test'
import { generateWebTypes, webTypesFile } from '../../scripts/web-api-types.js'
import { startTestApp, type TestApp } from '../helpers/app.js'
import { ROOT } from '../helpers/serve.js'

/** Entry + board route JavaScript, gzip, at most (the board is in the entry chunk; card detail, Markdown, settings are lazy). */
const BUDGET_BYTES = 150 * 1024

interface ManifestChunk {
  file: string
  isEntry?: boolean
  imports?: string[]
  dynamicImports?: string[]
  css?: string[]
}

test('web/src/api/schema.d.ts is what npm run web:types makes from the OpenAPI document', async () => {
  const fresh = await generateWebTypes()
  assert.ok(fresh === fs.readFileSync(webTypesFile, 'utf8'), 'web/src/api/schema.d.ts is out of date: run npm run web:types')
})

test('the JavaScript of the first board view (the entry and what it imports) is under 150 KB gzip', () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'dist/web/.vite/manifest.json'), 'utf8')) as Record<string, ManifestChunk>
  const entry = Object.entries(manifest).find(([, c]) => c.isEntry)
  assert.ok(entry, 'no entry chunk in the manifest')
  // The entry and its static imports, transitively: what loads before the board shows (dynamic imports are lazy).
  const files = new Set<string>()
  const visit = (key: string) => {
    const chunk = manifest[key]
    if (!chunk || files.has(chunk.file)) return
    files.add(chunk.file)
    for (const i of chunk.imports ?? []) visit(i)
  }
  visit(entry[0])
  const gzip = [...files].reduce((sum, f) => sum + zlib.gzipSync(fs.readFileSync(path.join(ROOT, 'dist/web', f)), { level: 9 }).length, 0)
  console.log(`# web app: first board view ${(gzip / 1024).toFixed(1)} KB of JavaScript gzip (${files.size} files; budget ${BUDGET_BYTES / 1024} KB)`)
  assert.ok(gzip <= BUDGET_BYTES, `the first board view is ${gzip} bytes of JavaScript gzip, over ${BUDGET_BYTES}`)
  // Markdown, card detail and settings are not in it.
  const lazy = Object.values(manifest).filter((c) => /markdown|settings|card-route/.test(c.file))
  assert.ok(lazy.length >= 3, 'the lazy chunks were not found')
  for (const c of lazy) assert.ok(!files.has(c.file), `${c.file} loads with the first board view`)
})

describe('taskd serves the web app', () => {
  let t: TestApp
  before(async () => {
    t = await startTestApp()
  })
  after(async () => {
    await t.close()
  })

  test('/ and the app’s own paths answer index.html with a strict CSP; assets are immutable and compressed', async () => {
    for (const p of ['/', '/boards/abc', '/cards/LCH-1', '/login/some-token', '/settings/webhooks']) {
      const r = await fetch(t.url + p, { headers: { accept: 'text/html' } })
      assert.equal(r.status, 200, p)
      assert.match(r.headers.get('content-type') ?? '', /^text\/html/)
      const csp = r.headers.get('content-security-policy') ?? ''
      assert.match(csp, /script-src 'self'(;|$)/)
      assert.match(csp, /style-src 'self'(;|$)/)
      assert.match(csp, /connect-src 'self'/)
      assert.match(csp, /frame-ancestors 'none'/)
      assert.equal(r.headers.get('referrer-policy'), 'no-referrer')
      const html = await r.text()
      assert.match(html, /<script type="module" crossorigin src="\/assets\/[^"]+\.js"><\/script>/)
      assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, 'an inline script')
      assert.doesNotMatch(html, /<style|style=/, 'an inline style')
    }
    const html = await (await fetch(`${t.url}/`, { headers: { accept: 'text/html' } })).text()
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)![1]
    const r = await fetch(t.url + script, { headers: { 'accept-encoding': 'gzip' } })
    assert.equal(r.status, 200)
    assert.match(r.headers.get('content-type') ?? '', /javascript/)
    assert.equal(r.headers.get('cache-control'), 'public, max-age=31536000, immutable')
    assert.equal(r.headers.get('content-encoding'), 'gzip')
    assert.ok((await r.text()).length > 1000)
    // The gzip copies made at build time go out only as an encoding, never by their own name.
    const copy = await fetch(`${t.url}${script}.gz`)
    assert.equal(copy.status, 404)
    await copy.body?.cancel()
    assert.equal((await fetch(`${t.url}/assets/nothing-here.js`)).status, 404)
    const favicon = await fetch(`${t.url}/favicon.svg`)
    assert.equal(favicon.status, 200)
    assert.match(favicon.headers.get('content-type') ?? '', /svg/)
  })

  test('the API, the docs and the operational routes keep their answers; a client not asking for HTML gets a JSON 404', async () => {
    const api = await fetch(`${t.url}/v1/no-such-route`, { headers: { accept: 'text/html' } })
    assert.equal(api.status, 404)
    assert.equal((await api.json()).error.code, 'not_found')
    assert.equal((await fetch(`${t.url}/healthz`)).status, 200)
    assert.equal((await fetch(`${t.url}/v1/openapi.json`)).status, 200)
    const docs = await fetch(`${t.url}/v1/docs/`)
    assert.equal(docs.status, 200)
    assert.doesNotMatch(docs.headers.get('content-security-policy') ?? '', /frame-ancestors/)
    for (const accept of ['application/json', '*/*']) {
      const json = await fetch(`${t.url}/anything`, { headers: { accept } })
      assert.equal(json.status, 404, accept)
      assert.equal((await json.json()).error.code, 'not_found')
    }
    const post = await fetch(`${t.url}/`, { method: 'POST' })
    assert.equal(post.status, 404)
    await post.body?.cancel()
    const me = await fetch(`${t.url}/v1/users/me`, { headers: { accept: 'text/html' } })
    assert.equal(me.status, 401)
    await me.body?.cancel()
  })
})

// Public note pages render untrusted Markdown off the event loop: while a real `taskd serve` renders hostile bodies
// (1 MB of `![`, 256 KB of it, nested `>` and `[`, long emphasis runs), GET /v1/users/me keeps answering (probe.ts).
// A body over 256 KB, or one that takes its rendering thread past 2 s, is shown as escaped plain text.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'
import { freshDatabase, type TestDatabase } from '../helpers/database.js'
import { assertTiming } from '../helpers/perf.js'
import { type Probe, startProbe } from '../helpers/probe.js'
import { serve, type Served } from '../helpers/serve.js'

const HOSTILE: Record<string, string> = {
  'image openers, 1 MB': '!['.repeat(499_999),
  'image openers, 256 KB': '!['.repeat(131_000),
  'link openers': '['.repeat(260_000),
  'nested quotes': Array.from({ length: 5_000 }, () => '>'.repeat(50) + ' x').join('\n'),
  'emphasis runs': '*a_'.repeat(87_000),
  'unclosed emphasis': '*'.repeat(130_000) + 'a' + '_'.repeat(130_000),
}

test('hostile Markdown on public note pages never stalls the server', { timeout: 300_000 }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-md-stall-'))
  let database: TestDatabase | undefined
  let server: Served | undefined
  const probes: Probe[] = []
  try {
    database = await freshDatabase(dir)
    server = await serve(database.db, database.env)
    const { url, token } = server
    const api = async (method: string, p: string, body?: unknown) => {
      const res = await fetch(url + p, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
      const json = (await res.json()) as Record<string, any>
      assert.ok(res.ok, JSON.stringify(json))
      return json
    }
    const board = (await api('POST', '/v1/boards', { name: 'Pages' })).board
    const publish = async (title: string, body: string) => {
      const note = (await api('POST', '/v1/notes', { title, body, board: board.id })).note
      return `${url}/v1/note-publications/public/${(await api('POST', '/v1/note-publications', { note: note.id })).note_publication.slug}`
    }
    const page = async (at: string) => {
      const res = await fetch(at, { headers: { accept: 'text/html' } })
      assert.equal(res.status, 200)
      return res
    }

    const plainNote = await publish('Plain', '# Steps\n\n1. **Build**\n2. Ship <script>alert(1)</script>')
    const normal = await (await page(plainNote)).text()
    assert.match(normal, /<h1>Steps<\/h1>/)
    assert.match(normal, /<strong>Build<\/strong>/)
    assert.match(normal, /&lt;script&gt;/)

    const overall = startProbe(url, token!)
    probes.push(overall)
    for (const [name, body] of Object.entries(HOSTILE)) {
      const at = await publish(name, body)
      // Stopped as soon as the page's answer starts to arrive: a server that rendered on its event loop would have
      // answered no probe while it rendered, and would send the page before the probes queued behind it.
      const probe = startProbe(url, token!)
      probes.push(probe)
      const res = await page(at)
      const report = await probe.stop()
      const html = await res.text()
      console.log(`${name} (${body.length} characters): ${/<pre style/.test(html) ? 'shown as plain text' : 'rendered'}; meanwhile ${report.summary}`)
      if (name === 'image openers, 1 MB') assert.match(html, /<pre style="white-space:pre-wrap">!\[!\[/, 'over 256 KB: plain text')
      if (name === 'image openers, 256 KB') {
        // Rendering this takes markdown-it seconds: the server answered others all along.
        assert.ok(report.answeredDuring >= 5, `only ${report.answeredDuring} answers to /v1/users/me while the page was made`)
      }
      assert.doesNotMatch(html, /<script/)
    }
    const report = await overall.stop()
    console.log(`all hostile pages: ${report.summary}`)
    assert.equal(report.failed, 0)
    assertTiming(report.p99 < 1000, `p99 ${report.p99.toFixed(1)} ms`)
    assert.equal((await fetch(`${url}/v1/users/me`, { headers: { authorization: `Bearer ${token}` } })).status, 200)
  } finally {
    await Promise.all(probes.map((p) => p.stop())) // a second stop only reports again
    await server?.stop()
    await database?.drop()
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

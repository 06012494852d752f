// A JSON-RPC batch at /mcp is bounded by the cost of one REST request: 100 × list_cards with per_page 500 and every
// relation expanded runs the first call and answers the rest with a JSON-RPC error, and /v1/users/me keeps answering
// meanwhile (a real `taskd serve`, probed every 50 ms; p99 under 1 s asserted in npm run test:perf).
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { openDatabase } from '../../src/db/open.js'
import { freshDatabase, type TestDatabase } from '../helpers/database.js'
import { assertTiming } from '../helpers/perf.js'
import { startProbe } from '../helpers/probe.js'
import { serve, type Served } from '../helpers/serve.js'

const CARDS = 1_000

test(
  'an MCP batch of 100 × list_cards (per_page 500, every expansion) is bounded by one request’s cost; others are answered meanwhile',
  { timeout: 300_000 },
  async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-mcp-batch-'))
    let database: TestDatabase | undefined
    let server: Served | undefined
    let client: Client | undefined
    try {
      database = await freshDatabase(dir)
      server = await serve(database.db, database.env)
      const { url, token } = server as Served & { token: string }
      const rest = async (method: string, p: string, body?: unknown) =>
        (await fetch(url + p, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })).json()
      const { board, lists } = await rest('POST', '/v1/boards', { name: 'Batch', key_prefix: 'BA' })
      const tags = await Promise.all(['bug', 'ui', 'api'].map((name) => rest('POST', '/v1/tags', { board: board.id, name })))
      // The cards go straight into the database, with tags and an assignee each, so every expansion has something to say.
      const db = await openDatabase({ ...database, readWorkers: 0 })
      try {
        await db.tx(async ({ q }) => {
          const owner = (await q.selectFrom('users').select('id').executeTakeFirstOrThrow()).id
          const at = '2026-11-01T00:00:00.000Z'
          const ids = Array.from({ length: CARDS }, (_, i) => i + 1)
          for (let start = 0; start < CARDS; start += 500) {
            const chunk = ids.slice(start, start + 500)
            await q
              .insertInto('cards')
              .values(
                chunk.map((i) => ({
                  id: `card${i}`,
                  board_id: board.id,
                  list_id: lists[i % lists.length].id,
                  key_num: i,
                  key: `BA-${i}`,
                  title: `card ${i}`,
                  description: 'a longer description of the card, '.repeat(8),
                  position: i,
                  priority: i % 5,
                  completed: 0,
                  archived: 0,
                  trashed: 0,
                  created_by: owner,
                  created_at: at,
                  updated_at: at,
                })),
              )
              .execute()
            await q
              .insertInto('card_tags')
              .values(chunk.flatMap((i) => tags.map((t: { tag: { id: string } }) => ({ card_id: `card${i}`, tag_id: t.tag.id }))))
              .execute()
            await q
              .insertInto('card_assignees')
              .values(chunk.map((i) => ({ card_id: `card${i}`, user_id: owner })))
              .execute()
          }
          await q
            .updateTable('boards')
            .set({ next_key: CARDS + 1 })
            .where('id', '=', board.id)
            .execute()
        })
      } finally {
        await db.close()
      }

      // An MCP client as tools use it: the relations list_cards may expand, and one full page through it.
      client = new Client({ name: 'taskd-batch-test', version: '1.0.0' })
      await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }))
      const listCards = (await client.listTools()).tools.find((t) => t.name === 'list_cards')!
      const relations = /relations to return inline: ([^.]+)\./.exec(String((listCards.inputSchema.properties as any).expand.description))![1]
      const args = { per_page: 500, expand: relations.replace(/ /g, '') }
      const one = (await client.callTool({ name: 'list_cards', arguments: args })) as { structuredContent: { items: unknown[] } }
      assert.equal(one.structuredContent.items.length, 500, 'one such call alone is answered in full, as over REST')

      const post = async (body: unknown) => {
        const res = await fetch(`${url}/mcp`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: JSON.stringify(body),
        })
        const text = await res.text()
        return { status: res.status, text, body: text ? JSON.parse(text) : undefined }
      }
      const hostile = Array.from({ length: 100 }, (_, i) => ({
        jsonrpc: '2.0',
        id: i + 1,
        method: 'tools/call',
        params: { name: 'list_cards', arguments: args },
      }))

      const probe = startProbe(url, token)
      const started = performance.now()
      const answers = []
      for (let round = 0; round < 3; round++) answers.push(await post(hostile))
      const took = performance.now() - started
      const report = await probe.stop()
      console.log(
        `3 batches of 100 × list_cards (per_page 500, expand ${args.expand}): ${Math.round(took)} ms, answers of ${answers.map((a) => a.text.length).join(', ')} bytes; ${report.summary}`,
      )
      for (const answer of answers) {
        assert.equal(answer.status, 200, answer.text.slice(0, 300))
        assert.equal(answer.body.length, 100, 'every request of the batch is answered')
        const [first, ...rest] = answer.body.sort((a: { id: number }, b: { id: number }) => a.id - b.id)
        assert.ok(first.result.structuredContent.items.length === 500, 'the first call runs')
        // Booleans only: an assertion message showing a page of 500 cards would take long to print.
        const ran = rest.filter((r: { result?: unknown }) => r.result !== undefined).length
        assert.ok(ran === 0, `${ran} calls beyond one request's cost were run`)
        for (const r of rest) {
          assert.equal(r.error.code, -32001)
          assert.match(r.error.message, /^Not run: the batch's calls cost more than one request may/)
        }
        assert.ok(answer.text.length < 2 * one.structuredContent.items.length * 10_000, 'the answer is about one page, not a hundred')
      }
      assert.ok(report.answeredDuring >= 1, `no answer to /v1/users/me arrived while the batches ran: ${report.summary}`)
      assert.equal(report.failed, 0)
      assertTiming(report.p99 < 1000, `p99 ${report.p99.toFixed(1)} ms`)

      // Cheap batches are answered whole, in one budget: whoami and small pages; notifications alone get 202.
      const cheap = await post([
        { jsonrpc: '2.0', id: 'a', method: 'tools/call', params: { name: 'whoami', arguments: {} } },
        ...Array.from({ length: 20 }, (_, i) => ({
          jsonrpc: '2.0',
          id: i,
          method: 'tools/call',
          params: { name: 'list_cards', arguments: { per_page: 5, expand: 'tags' } },
        })),
        { jsonrpc: '2.0', method: 'notifications/initialized' },
      ])
      assert.equal(cheap.status, 200, cheap.text)
      assert.equal(cheap.body.length, 21)
      assert.ok(
        cheap.body.every((r: { result?: { isError?: boolean } }) => r.result && !r.result.isError),
        cheap.text.slice(0, 300),
      )
      assert.equal((await post([{ jsonrpc: '2.0', method: 'notifications/initialized' }])).status, 202)
      // Past 100 messages, or with initialize inside, a batch is refused whole.
      assert.equal((await post([...hostile, ...hostile])).status, 400)
      const init = await post([{ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }, hostile[0]])
      assert.equal(init.status, 400)
      assert.equal(init.body.error.code, -32600)
    } finally {
      await client?.close()
      await server?.stop()
      await database?.drop()
      fs.rmSync(dir, { recursive: true, force: true })
    }
  },
)

// Old keys of a renamed key prefix name only the cards that had them: `key = "OLD-n"` (the card filter, and MCP's
// get_card by key, which goes through it) never matches a card numbered after the board left OLD.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { seededApp } from '../helpers/app.js'

test('key = "OLD-n" matches the cards numbered before the prefix changed, never those numbered after', async () => {
  const c = await seededApp()
  let client: Client | undefined
  try {
    const token = c.tokens.owner.write
    const board = (await c.t.req('POST', '/v1/boards', { token, body: { name: 'Old', key_prefix: 'OLD' } })).body.board
    const card = async (title: string) => {
      const r = await c.t.req('POST', '/v1/cards', { token, body: { board: board.id, title } })
      assert.equal(r.status, 201, r.text)
      return r.body.card as { id: string; key: string }
    }
    const rename = async (key_prefix: string) => assert.equal((await c.t.req('PATCH', `/v1/boards/${board.id}`, { token, body: { key_prefix } })).status, 200)
    const keys = async (filter: string, extra = '') => {
      const r = await c.t.req('GET', `/v1/cards?per_page=100${extra}&filter=${encodeURIComponent(filter)}`, { token })
      assert.equal(r.status, 200, r.text)
      return r.body.items.map((i: { key: string }) => i.key).sort()
    }
    for (let i = 1; i <= 3; i++) await card(`before ${i}`)
    await rename('NEW')
    await card('after 4')
    await card('after 5')
    assert.deepEqual(await keys('key = "OLD-3"'), ['NEW-3'], 'an old key still names its card')
    assert.deepEqual(await keys('key = "OLD-4"'), [], 'NEW-4 was never OLD-4')
    assert.deepEqual(await keys('key = "old-5"'), [], 'in any case')
    assert.deepEqual(await keys('key != "OLD-4"', `&board=${board.id}`), ['NEW-1', 'NEW-2', 'NEW-3', 'NEW-4', 'NEW-5'])
    assert.deepEqual(await keys('key = "OLD-1" || key = "OLD-5"'), ['NEW-1'])

    // Back to an earlier prefix and away again: each prefix names the numbers given until the board last left it.
    await rename('OLD')
    await rename('THIRD')
    await card('after 6')
    // A card moved in from another board takes the next number: it never had an old key either.
    const foreign = (await c.t.req('POST', '/v1/cards', { token, body: { board: c.board.id, title: 'foreign' } })).body.card
    const moved = await c.t.req('POST', `/v1/cards/${foreign.id}/move`, { token, body: { board: board.id, list: (await listOf(c, board.id)).id } })
    assert.equal(moved.body.card.key, 'THIRD-7')
    assert.deepEqual(await keys('key = "OLD-5"'), ['THIRD-5'], 'OLD was the prefix again when 5 existed')
    assert.deepEqual(await keys('key = "NEW-5"'), ['THIRD-5'])
    for (const gone of ['OLD-6', 'NEW-6', 'OLD-7', 'NEW-7']) assert.deepEqual(await keys(`key = "${gone}"`), [], gone)
    assert.deepEqual(await keys('key = "THIRD-7"'), ['THIRD-7'])

    // MCP's get_card takes a key too.
    client = new Client({ name: 'taskd-test', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${c.t.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }))
    const get = (id: string) => client!.callTool({ name: 'get_card', arguments: { id } }) as Promise<{ isError?: boolean; structuredContent?: any }>
    assert.equal((await get('NEW-2')).structuredContent.card.key, 'THIRD-2')
    const missing = await get('NEW-6')
    assert.equal(missing.isError, true, 'NEW-6 never existed')
  } finally {
    await client?.close()
    await c.t.close()
  }
})

const listOf = async (c: Awaited<ReturnType<typeof seededApp>>, board: string) =>
  (await c.t.req('GET', `/v1/lists?board=${board}`, { token: c.tokens.owner.read })).body.items[0] as { id: string }

// The MCP server at /mcp, driven by the SDK's own Client over Streamable HTTP: the tool list and its annotations, every
// tool called and its result compared with the REST API, errors as tool errors with the API error message, a read only token,
// a member who cannot see the board, and the HTTP edge (401 with WWW-Authenticate, 405 on GET and DELETE).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { type agentApp, withAgentApp } from '../helpers/agents.js'

type App = Awaited<ReturnType<typeof agentApp>>

async function connect(s: App, token: string): Promise<Client> {
  const client = new Client({ name: 'taskd-test', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${s.t.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }))
  return client
}

interface ToolReply {
  isError?: boolean
  content: { type: string; text: string }[]
  structuredContent?: any
}

/** Calls a tool; a successful result's text must be the JSON of its structured content. */
async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolReply> {
  const r = (await client.callTool({ name, arguments: args })) as ToolReply
  assert.equal(r.content[0].type, 'text')
  if (!r.isError) assert.deepEqual(JSON.parse(r.content[0].text), r.structuredContent, `${name}: text and structured content differ`)
  return r
}
async function ok(client: Client, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const r = await call(client, name, args)
  assert.ok(!r.isError, `${name} failed: ${r.content[0].text}`)
  return r.structuredContent
}
async function fails(client: Client, name: string, args: Record<string, unknown>): Promise<{ text: string; error: any }> {
  const r = await call(client, name, args)
  assert.equal(r.isError, true, `${name} should fail: ${r.content[0].text}`)
  return { text: r.content[0].text, error: r.structuredContent?.error }
}

const TOOL_NAMES = [
  'whoami',
  'list_boards',
  'list_lists',
  'list_cards',
  'get_card',
  'create_card',
  'update_card',
  'move_card',
  'complete_card',
  'add_comment',
  'create_note',
  'start_timer',
  'stop_timer',
  'kickoff_agent',
  'search',
  'list_milestones',
  'create_milestone',
  'update_milestone',
  'add_dependency',
  'remove_dependency',
  'list_dependencies',
  'list_card_files',
  'list_custom_fields',
  'set_card_custom_fields',
  'list_card_templates',
  'recent_changes',
  'list_forms',
]
const READ_TOOLS = new Set([
  'whoami',
  'list_boards',
  'list_lists',
  'list_cards',
  'get_card',
  'search',
  'list_dependencies',
  'list_milestones',
  'list_card_files',
  'list_custom_fields',
  'list_card_templates',
  'recent_changes',
  'list_forms',
])

test('tools/list: the documented tools, each described, with an object input schema and read or write annotations', async () => {
  await withAgentApp(async (s) => {
    const client = await connect(s, s.tokens.member.read)
    try {
      const { tools } = await client.listTools()
      assert.deepEqual(tools.map((t) => t.name).sort(), [...TOOL_NAMES].sort())
      for (const tool of tools) {
        assert.ok((tool.description ?? '').length >= 40, `${tool.name} needs a real description`)
        assert.equal(tool.inputSchema.type, 'object', tool.name)
        assert.equal(tool.inputSchema.$ref, undefined, `${tool.name}: inline schema, no $ref at the root`)
        assert.equal(tool.inputSchema.additionalProperties, false, `${tool.name}: unknown arguments are refused`)
        for (const [name, prop] of Object.entries(tool.inputSchema.properties ?? {})) {
          assert.ok((prop as { description?: string }).description, `${tool.name}.${name} needs a description`)
        }
        const a = tool.annotations ?? {}
        if (READ_TOOLS.has(tool.name)) assert.equal(a.readOnlyHint, true, tool.name)
        else {
          assert.equal(a.readOnlyHint, false, tool.name)
          assert.equal(typeof a.destructiveHint, 'boolean', tool.name)
        }
      }
      const listCards = tools.find((t) => t.name === 'list_cards')!
      // The grammar in short, with two examples, and the documented parameters.
      assert.match(listCards.description!, /Operators: = != > >= < <= ~/)
      assert.match(listCards.description!, /Examples: `[^`]+`; `[^`]+`/)
      assert.deepEqual(Object.keys(listCards.inputSchema.properties ?? {}).sort(), ['board', 'expand', 'filter', 'list', 'page', 'per_page', 'sort'])
      const createCard = tools.find((t) => t.name === 'create_card')!
      assert.deepEqual(createCard.inputSchema.required, ['board']) // title may come from a card template
      assert.equal(tools.find((t) => t.name === 'update_card')!.annotations?.destructiveHint, true)
    } finally {
      await client.close()
    }
  })
})

test('every tool does what the REST API does, as the token’s user', async () => {
  await withAgentApp(async (s) => {
    const { t, tokens } = s
    const agent = await s.agent('Scribe', { powers: ['local_access'] })
    const client = await connect(s, tokens.member.write)
    try {
      const me = await ok(client, 'whoami')
      assert.equal(me.user.id, s.member.id)

      const boards = await ok(client, 'list_boards', { sort: 'name' })
      assert.deepEqual(
        boards.items.map((b: { id: string }) => b.id),
        [s.board.id],
      )
      assert.equal(boards.totalItems, 1)
      const lists = await ok(client, 'list_lists', { board: s.board.id })
      assert.deepEqual(
        lists.items.map((l: { id: string }) => l.id),
        s.lists.map((l) => l.id),
      )

      const created = await ok(client, 'create_card', { board: s.board.id, title: 'Draft the launch post', priority: 3 })
      const card = created.card
      const rest = (await t.req('GET', `/v1/cards/${card.id}`, { token: tokens.member.read })).body.card
      assert.deepEqual(card, rest)
      assert.equal(rest.created_by.id, s.member.id)

      assert.deepEqual((await ok(client, 'get_card', { id: card.id })).card, rest)
      assert.deepEqual((await ok(client, 'get_card', { id: card.key })).card, rest, 'by key')
      const withTags = await ok(client, 'get_card', { id: card.id, expand: 'list' })
      assert.equal(withTags.card.expand.list.id, card.list)

      const updated = (await ok(client, 'update_card', { id: card.id, title: 'Publish the launch post', due_date: '2026-12-01' })).card
      assert.equal(updated.title, 'Publish the launch post')
      assert.equal(updated.priority, 3, 'fields not given stay')
      const moved = (await ok(client, 'move_card', { id: card.id, list: s.lists[1].id })).card
      assert.equal(moved.list, s.lists[1].id)
      const done = (await ok(client, 'complete_card', { id: card.id })).card
      assert.deepEqual([done.completed, done.list], [true, s.lists[2].id], 'completing moves the card to the completed list')
      assert.equal((await ok(client, 'complete_card', { id: card.id, completed: false })).card.completed, false)
      assert.deepEqual((await t.req('GET', `/v1/cards/${card.id}`, { token: tokens.member.read })).body.card.list, s.lists[0].id, 're-opened into To do')

      const page = await ok(client, 'list_cards', { filter: 'priority >= 3 && title ~ "launch"', board: s.board.id, sort: '-created', per_page: 5 })
      assert.equal(page.totalItems, 1)
      assert.equal(page.items[0].id, card.id)
      assert.equal(page.perPage, 5)
      const none = await ok(client, 'list_cards', { filter: 'priority < 3' })
      assert.equal(none.totalItems, 0)

      const comment = (await ok(client, 'add_comment', { card: card.id, body: 'Looks good to me' })).comment
      assert.equal(comment.card, card.id)
      assert.equal(comment.author.id, s.member.id)
      const note = (await ok(client, 'create_note', { title: 'Launch checklist', body: 'Post, mail, tweet', board: s.board.id })).note
      assert.equal((await t.req('GET', `/v1/notes/${note.id}`, { token: tokens.member.read })).body.note.title, 'Launch checklist')

      const started = (await ok(client, 'start_timer', { card: card.id, note: 'writing' })).time_entry
      assert.equal(started.ended_at, null)
      s.t.clock.advance(90_000)
      const stopped = (await ok(client, 'stop_timer')).time_entry
      assert.equal(stopped.id, started.id)
      assert.equal(stopped.duration_seconds, 90)

      const kickoff = (await ok(client, 'kickoff_agent', { card: card.id, agent: agent.id, powers: ['local_access'], model: 'fast', message: 'Proofread it' }))
        .kickoff
      const restKickoff = await s.getKickoff(kickoff.id)
      assert.equal(restKickoff.card, card.id)
      assert.equal(restKickoff.agent.id, agent.id)
      assert.deepEqual(restKickoff.powers, ['local_access'])

      const found = await ok(client, 'search', { q: 'LAUNCH' })
      assert.deepEqual(found, (await t.req('GET', '/v1/search?q=LAUNCH', { token: tokens.member.read })).body, 'the tool answers as the route')
      assert.deepEqual(found.items.map((i: { type: string; id: string }) => `${i.type} ${i.id}`).sort(), [`card ${card.id}`, `note ${note.id}`])
      const onlyComments = await ok(client, 'search', { q: 'good to', types: ['comment'] })
      assert.deepEqual(
        onlyComments.items.map((i: { type: string; id: string; card: { id: string } }) => [i.type, i.id, i.card.id]),
        [['comment', comment.id, card.id]],
      )
    } finally {
      await client.close()
    }
  })
})

test('errors are tool errors with the API error message: filter positions, validation, unknown records', async () => {
  await withAgentApp(async (s) => {
    const client = await connect(s, s.tokens.member.write)
    try {
      const bad = await fails(client, 'list_cards', { filter: 'priority >= ' })
      assert.equal(bad.error.code, 'invalid_filter')
      assert.match(bad.text, /^at 13: expected a value/)
      const rest = await s.t.req('GET', `/v1/cards?filter=${encodeURIComponent('priority >= ')}`, { token: s.tokens.member.read })
      assert.equal(bad.error.message, rest.body.error.message, 'the same message as the REST API')

      const unknownField = await fails(client, 'list_cards', { filter: 'colour = "red"' })
      assert.match(unknownField.text, /^at 1: /)
      assert.equal((await fails(client, 'list_cards', { sort: 'colour' })).error.code, 'bad_request')

      // The route's own rules: a list of another board is named in the details.
      const other = (await s.t.req('POST', '/v1/boards', { token: s.tokens.member.write, body: { name: 'Other', key_prefix: 'OTH' } })).body
      const wrongList = await fails(client, 'create_card', { board: s.board.id, title: 'x', list: other.lists[0].id })
      assert.equal(wrongList.error.code, 'validation_failed')
      assert.ok(wrongList.error.details.some((d: { path: string }) => d.path === 'list'))
      assert.match(wrongList.text, /\nlist: /)

      const missing = await fails(client, 'get_card', { id: 'nosuchcard' })
      assert.equal(missing.error.code, 'not_found')
      assert.equal((await fails(client, 'get_card', { id: 'LCH-999' })).error.code, 'not_found')
      // Arguments outside the schema are refused before anything runs.
      const extra = await call(client, 'create_card', { board: s.board.id, title: 'x', colour: 'red' })
      assert.equal(extra.isError, true)
      assert.equal((await s.t.req('GET', '/v1/cards', { token: s.tokens.member.read })).body.totalItems, 0, 'nothing was created')
    } finally {
      await client.close()
    }
  })
})

test('a read only token lists and reads; every write tool fails with the REST message and changes nothing', async () => {
  await withAgentApp(async (s) => {
    const card = await s.card('Existing')
    const client = await connect(s, s.tokens.member.read)
    try {
      assert.equal((await ok(client, 'list_cards')).totalItems, 1)
      assert.equal((await ok(client, 'get_card', { id: card.key })).card.id, card.id)
      const writes: [string, Record<string, unknown>][] = [
        ['create_card', { board: s.board.id, title: 'New' }],
        ['update_card', { id: card.id, title: 'Changed' }],
        ['move_card', { id: card.id, list: s.lists[1].id }],
        ['complete_card', { id: card.id }],
        ['add_comment', { card: card.id, body: 'hi' }],
        ['create_note', { title: 'n' }],
        ['start_timer', { card: card.id }],
        ['stop_timer', {}],
        ['kickoff_agent', { card: card.id }],
      ]
      for (const [name, args] of writes) {
        const r = await fails(client, name, args)
        assert.equal(r.error.code, 'forbidden', name)
        assert.equal(r.text, 'This token is read only.', name)
      }
      const after = (await s.t.req('GET', `/v1/cards/${card.id}`, { token: s.tokens.member.read })).body.card
      assert.equal(after.title, 'Existing')
      assert.equal(after.completed, false)
      assert.equal((await s.t.req('GET', '/v1/cards', { token: s.tokens.member.read })).body.totalItems, 1)
      assert.equal((await s.t.req('GET', `/v1/comments?card=${card.id}`, { token: s.tokens.member.read })).body.totalItems, 0)
    } finally {
      await client.close()
    }
  })
})

test('a member who is not on the board sees none of it through the tools', async () => {
  await withAgentApp(async (s) => {
    const card = await s.card('Secret plan')
    const client = await connect(s, s.tokens.outsider.write)
    try {
      assert.equal((await ok(client, 'list_boards')).totalItems, 0)
      assert.equal((await ok(client, 'list_cards')).totalItems, 0)
      assert.equal((await ok(client, 'list_lists', { board: s.board.id })).totalItems, 0)
      assert.equal((await ok(client, 'search', { q: 'secret' })).totalItems, 0)
      const byId = await fails(client, 'get_card', { id: card.id })
      const rest = await s.t.req('GET', `/v1/cards/${card.id}`, { token: s.tokens.outsider.read })
      assert.equal(rest.status, 404)
      assert.equal(byId.error.message, rest.body.error.message)
      assert.equal((await fails(client, 'get_card', { id: card.key })).error.code, 'not_found')
      assert.equal((await fails(client, 'update_card', { id: card.id, title: 'Mine now' })).error.code, 'not_found')
      assert.equal((await fails(client, 'add_comment', { card: card.id, body: 'hello' })).error.code, 'not_found')
      assert.equal((await fails(client, 'create_card', { board: s.board.id, title: 'Intruder' })).error.code, 'not_found')
      assert.equal((await s.t.req('GET', `/v1/cards/${card.id}`, { token: s.tokens.member.read })).body.card.title, 'Secret plan')
    } finally {
      await client.close()
    }
  })
})

test('the HTTP edge: 401 with WWW-Authenticate without a valid token, 405 on GET and DELETE', async () => {
  await withAgentApp(async (s) => {
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    }
    const post = (headers: Record<string, string>) =>
      fetch(`${s.t.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify(init),
      })
    const refused: Record<string, string>[] = [{}, { authorization: 'Bearer tt_' + 'x'.repeat(40) }, { authorization: 'Basic abc' }]
    for (const headers of refused) {
      const r = await post(headers)
      assert.equal(r.status, 401)
      assert.equal(r.headers.get('www-authenticate'), 'Bearer')
      const body = (await r.json()) as { error: { code: string; message: string } }
      assert.equal(body.error.code, 'unauthorized')
    }
    const good = await post({ authorization: `Bearer ${s.tokens.member.read}` })
    assert.equal(good.status, 200)
    assert.equal(good.headers.get('mcp-session-id'), null, 'stateless: no session')
    for (const method of ['GET', 'DELETE']) {
      const r = await fetch(`${s.t.url}/mcp`, { method, headers: { authorization: `Bearer ${s.tokens.member.read}` } })
      assert.equal(r.status, 405, method)
      assert.equal(r.headers.get('allow'), 'POST')
      assert.equal(((await r.json()) as { error: { code: string } }).error.code, 'method_not_allowed')
    }
    // A client that dies never held anything: a later client works at once.
    const client = await connect(s, s.tokens.member.read)
    try {
      assert.equal((await ok(client, 'whoami')).user.id, s.member.id)
    } finally {
      await client.close()
    }
  })
})

test("custom fields: an assistant reads a board's fields and sets a card's values", async () => {
  await withAgentApp(async (s) => {
    const made = await s.t.req('POST', '/v1/xattr', { token: s.tokens.member.write, body: { board: s.board.id, name: 'Estimate', type: 'number' } })
    assert.equal(made.status, 201, made.text)
    const client = await connect(s, s.tokens.member.write)
    try {
      const fields = await ok(client, 'list_custom_fields', { board: s.board.id })
      assert.deepEqual(
        fields.items.map((f: { key: string; type: string }) => [f.key, f.type]),
        [['estimate', 'number']],
      )
      const card = (await ok(client, 'create_card', { board: s.board.id, title: 'Sized', xattr: { estimate: 2 } })).card
      assert.deepEqual(card.xattr, { estimate: 2 })
      const set = await ok(client, 'set_card_custom_fields', { id: card.id, xattr: { estimate: 5 } })
      assert.deepEqual(set.card.xattr, { estimate: 5 })
      const wrong = await fails(client, 'set_card_custom_fields', { id: card.id, xattr: { estimate: 'five' } })
      assert.match(wrong.text, /xattr\.estimate/)
      const found = await ok(client, 'list_cards', { filter: 'xattr.estimate >= 5', sort: '-xattr.estimate' })
      assert.deepEqual(
        found.items.map((c: { id: string }) => c.id),
        [card.id],
      )
    } finally {
      await client.close()
    }
  })
})

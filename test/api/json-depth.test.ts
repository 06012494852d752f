// JSON nested past 64 levels is refused before it is parsed, with a 400 in the error shape: on an API route, on an
// incoming endpoint (logged, and no run queued for it) and on /mcp. 20,000 levels used to overflow the stack (500).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { seededApp } from '../helpers/app.js'

const nested = (levels: number, inner = '1') => '['.repeat(levels) + inner + ']'.repeat(levels)
/** An object of `levels` levels in all: {"a":{"a":...{"a":1}...}}. */
const nestedObject = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels)

test('JSON deeper than 64 levels answers 400 bad_request on an API route, an incoming endpoint and /mcp; 64 levels are read', async () => {
  const s = await seededApp()
  try {
    const token = s.tokens.admin.write
    const post = (path: string, raw: string, headers: Record<string, string> = {}) =>
      fetch(s.t.url + path, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers }, body: raw })

    // An API route.
    for (const raw of [`{"name":${nested(20_000)}}`, `{"name":"x","description":${nestedObject(64)}}`]) {
      const res = await post('/v1/boards', raw)
      const body = (await res.json()) as { error: { code: string; message: string } }
      assert.equal(res.status, 400, JSON.stringify(body))
      assert.equal(body.error.code, 'bad_request')
      assert.match(body.error.message, /deeper than 64 levels/)
    }
    // Brackets inside strings do not count, and 64 levels are read (then judged by the route's schema: 422, not 400).
    const inString = await post('/v1/boards', JSON.stringify({ name: '[[[{{{', description: '[{'.repeat(2_000) }))
    assert.equal(inString.status, 201)
    const atLimit = await post('/v1/boards', `{"name":"x","description":${nestedObject(63)}}`)
    assert.equal(atLimit.status, 422)

    // An incoming endpoint with an automation listening: refused, logged, and nothing queued to run on it.
    const ep = (await s.t.req('POST', '/v1/webhooks/incoming', { token, body: { name: 'Deep' } })).body.incoming_webhook
    const automation = await s.t.req('POST', '/v1/automations', {
      token,
      body: {
        name: 'listen',
        board: s.board.id,
        trigger: { type: 'incoming_webhook', endpoint: ep.id },
        steps: [{ type: 'create_card', title: '{webhook.body.a}' }],
      },
    })
    assert.equal(automation.status, 201, automation.text)
    const hook = ep.url.replace('http://taskd.test', s.t.url)
    const refused = await fetch(hook, { method: 'POST', headers: { 'content-type': 'application/json' }, body: `{"a":${nested(20_000)}}` })
    const refusedBody = (await refused.json()) as { error: { code: string } }
    assert.equal(refused.status, 400, JSON.stringify(refusedBody))
    assert.equal(refusedBody.error.code, 'bad_request')
    const log = (await s.t.req('GET', `/v1/webhooks/incoming/${ep.id}/logs`, { token })).body.items
    assert.deepEqual(
      log.map((r: { outcome: string; status: number; runs: unknown[] }) => [r.outcome, r.status, r.runs.length]),
      [['unsupported_body', 400, 0]],
    )
    const runs = (await s.t.req('GET', `/v1/automations/${automation.body.automation.id}/runs`, { token })).body
    assert.equal(runs.totalItems, 0)
    // The trigger route reads its body like any API route.
    const triggered = await post(`/v1/webhooks/incoming/${ep.id}/trigger`, nestedObject(100))
    assert.equal(triggered.status, 400)

    // MCP: a tools/call whose arguments nest 20,000 levels.
    const call = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_card","arguments":{"title":${nested(20_000)}}}}`
    const mcp = await post('/mcp', call, { accept: 'application/json, text/event-stream' })
    const mcpBody = (await mcp.json()) as { error: { code: string } }
    assert.equal(mcp.status, 400, JSON.stringify(mcpBody))
    assert.equal(mcpBody.error.code, 'bad_request')

    // The server still answers.
    assert.equal((await s.t.req('GET', '/v1/users/me', { token })).status, 200)
  } finally {
    await s.t.close()
  }
})

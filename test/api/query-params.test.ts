// Query parameters a route does not define are refused (400 naming them), on every route behind a token, never ignored:
// a misspelt `filtr=` must not answer every record as if it had matched. The parameters clients send still work.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { seededApp } from '../helpers/app.js'

test('every GET route in the OpenAPI document refuses an unknown query parameter with a 400 naming it', async () => {
  const { t, tokens } = await seededApp()
  try {
    const doc = (await t.req('GET', '/v1/openapi.json')).body
    const routes = Object.entries(doc.paths as Record<string, Record<string, any>>).filter(([, ops]) => ops.get && ops.get.security?.length !== 0)
    assert.ok(routes.length > 40, `${routes.length} GET routes`)
    for (const [p, ops] of routes) {
      const known = (ops.get.parameters ?? []).filter((x: any) => x.in === 'query').map((x: any) => x.name as string)
      const url = `${p.replace(/\{\w+\}/g, 'nope')}?filtr=${encodeURIComponent('title ~ "x"')}`
      const r = await t.req('GET', url, { token: tokens.owner.full })
      assert.equal(r.status, 400, `GET ${url}: ${r.text}`)
      assert.equal(r.body.error.code, 'bad_request')
      assert.match(r.body.error.message, /Unknown query parameter "filtr"/, `GET ${url}`)
      assert.match(r.body.error.message, known.length ? new RegExp(`takes ${known.join(', ')}\\.`) : /takes no query parameters/, `GET ${url}`)
      assert.deepEqual(r.body.error.details, [{ path: 'filtr', message: 'Unknown query parameter.' }])
    }
    // Several at once are all named; a known one beside them changes nothing.
    const two = await t.req('GET', '/v1/cards?filtr=x&per_page=5&pagee=2', { token: tokens.owner.read })
    assert.equal(two.status, 400)
    assert.match(two.body.error.message, /Unknown query parameters "filtr", "pagee"\./)
  } finally {
    await t.close()
  }
})

test('the query parameters clients send (the n8n node, MCP tools, the docs) are still taken', async () => {
  const { t, tokens, board } = await seededApp()
  try {
    const token = tokens.owner.read
    const ok = [
      `/v1/cards?filter=${encodeURIComponent('priority >= 0')}&board=${board.id}&sort=-created&page=1&per_page=5&expand=tags`,
      `/v1/lists?board=${board.id}&page=1&per_page=500`,
      `/v1/users?filter=${encodeURIComponent('kind = "agent"')}&sort=name`,
      '/v1/boards?sort=name&page=1&per_page=100',
      '/v1/agent-workflows?sort=name',
      '/v1/webhooks/incoming?page=1&per_page=100',
    ]
    for (const url of ok) {
      const r = await t.req('GET', url, { token })
      assert.equal(r.status, 200, `GET ${url}: ${r.text}`)
    }
  } finally {
    await t.close()
  }
})

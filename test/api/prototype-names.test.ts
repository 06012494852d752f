// Names a client sends (sort, expand, filter fields, event names, any string parameter) are looked up in own-property
// maps only: the names of Object.prototype never reach a prototype and never answer 5xx, on any route.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { seededApp } from '../helpers/app.js'

const NAMES = ['constructor', '__proto__', 'toString', '-valueOf', 'hasOwnProperty']

test('every GET route of the served document answers the prototype names in every string query parameter without a 5xx', async () => {
  const c = await seededApp()
  try {
    const doc = (await c.t.req('GET', '/v1/openapi.json')).body as {
      paths: Record<string, Record<string, { parameters?: { in: string; name: string; schema?: { type?: string } }[] }>>
    }
    let tried = 0
    for (const [template, ops] of Object.entries(doc.paths)) {
      const op = ops.get
      if (!op) continue
      const path = template.replace(/\{\w+\}/g, c.board.id)
      const strings = (op.parameters ?? []).filter((p) => p.in === 'query' && (p.schema?.type === 'string' || p.schema?.type === undefined)).map((p) => p.name)
      for (const param of strings) {
        for (const name of NAMES) {
          const r = await c.t.req('GET', `${path}?${param}=${encodeURIComponent(name)}`, { token: c.tokens.owner.read })
          assert.ok(r.status < 500, `GET ${path}?${param}=${name} answered ${r.status}: ${r.text.slice(0, 200)}`)
          tried++
        }
      }
      for (const name of NAMES) {
        const r = await c.t.req('GET', `${path}?filter=${encodeURIComponent(`${name.replace('-', '')} = "x"`)}`, { token: c.tokens.owner.read })
        assert.ok(r.status < 500, `GET ${path} with a filter on ${name} answered ${r.status}`)
      }
    }
    assert.ok(tried > 100, `${tried} requests`)
    const sort = await c.t.req('GET', '/v1/cards?sort=constructor', { token: c.tokens.owner.read })
    assert.equal(sort.status, 400)
    assert.equal(sort.body.error.code, 'bad_request')
  } finally {
    await c.t.close()
  }
})

// The OpenAPI document: valid per a real validator, covering every mounted route, served with local-only docs.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createConfig, lintFromString } from '@redocly/openapi-core'
import { startTestApp } from '../helpers/app.js'

test('GET /v1/openapi.json passes the Redocly validator with no errors', async () => {
  const t = await startTestApp()
  const r = await t.req('GET', '/v1/openapi.json')
  assert.equal(r.status, 200)
  assert.equal(r.body.openapi, '3.1.0')
  const config = await createConfig({ extends: ['minimal'] })
  const problems = await lintFromString({ source: r.text, absoluteRef: 'openapi.json', config })
  const errors = problems.filter((p) => p.severity === 'error')
  assert.deepEqual(errors.map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`), [])
  await t.close()
})

test('the document covers every route with parameters, bodies, responses, the error shape and bearer security', async () => {
  const t = await startTestApp()
  const doc = (await t.req('GET', '/v1/openapi.json')).body
  assert.equal(doc.components.securitySchemes.bearerAuth.scheme, 'bearer')
  assert.ok(doc.components.schemas.Error)
  const expected = ['get /v1/users/me', 'get /v1/users', 'post /v1/users', 'patch /v1/users/{id}', 'get /v1/tokens', 'post /v1/tokens', 'delete /v1/tokens/{id}',
    'get /v1/boards', 'post /v1/boards', 'get /v1/boards/{id}', 'patch /v1/boards/{id}', 'delete /v1/boards/{id}', 'post /v1/boards/{id}/clone',
    'get /v1/boards/{id}/members', 'post /v1/boards/{id}/members', 'delete /v1/boards/{id}/members/{user}',
    'get /v1/lists', 'post /v1/lists', 'get /v1/lists/{id}', 'patch /v1/lists/{id}', 'delete /v1/lists/{id}',
    'get /v1/cards', 'post /v1/cards', 'get /v1/cards/{id}', 'patch /v1/cards/{id}', 'delete /v1/cards/{id}', 'post /v1/cards/{id}/move', 'post /v1/cards/{id}/complete',
    'get /v1/tags', 'post /v1/tags', 'get /v1/tags/{id}', 'patch /v1/tags/{id}', 'delete /v1/tags/{id}']
  const documented = Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops as object).map((m) => `${m} ${p}`))
  for (const route of expected) assert.ok(documented.includes(route), `${route} is documented`)
  for (const [p, ops] of Object.entries(doc.paths) as [string, Record<string, any>][]) {
    for (const [m, op] of Object.entries(ops)) {
      assert.ok(op.responses['401'] && op.responses['500'], `${m} ${p} documents its errors`)
      assert.equal(op.responses['401'].content['application/json'].schema.$ref, '#/components/schemas/Error')
      assert.deepEqual(op.security, [{ bearerAuth: [] }])
      if (['post', 'patch'].includes(m) && expected.includes(`${m} ${p}`) && !p.endsWith('/complete')) assert.ok(op.requestBody, `${m} ${p} has a request body`)
      for (const name of p.match(/\{(\w+)\}/g) ?? []) assert.ok(op.parameters.some((x: any) => x.in === 'path' && `{${x.name}}` === name), `${m} ${p} documents ${name}`)
    }
  }
  const cards = doc.paths['/v1/cards'].get.parameters.map((x: any) => x.name)
  for (const q of ['page', 'per_page', 'sort', 'filter', 'expand', 'board', 'completed', 'archived', 'trashed', 'state', 'assignee', 'team']) assert.ok(cards.includes(q), q)
  await t.close()
})

test('/v1/docs and /v1/redoc render from assets served by taskd itself', async () => {
  const t = await startTestApp()
  for (const page of ['/v1/docs/', '/v1/redoc']) {
    const r = await t.req('GET', page)
    assert.equal(r.status, 200)
    assert.match(r.headers.get('content-type') ?? '', /text\/html/)
    assert.match(r.headers.get('content-security-policy') ?? '', /default-src 'self'/)
    const refs = [...r.text.matchAll(/(?:src|href)=["']([^"']+)["']/g)].map((m) => m[1])
    assert.ok(refs.length > 0)
    for (const ref of refs) {
      assert.ok(!/^(https?:)?\/\//.test(ref), `${page} loads ${ref} from another host`)
      const asset = await fetch(new URL(ref, t.url + page))
      assert.equal(asset.status, 200, `${page} asset ${ref}`)
    }
  }
  const init = await fetch(`${t.url}/v1/docs/swagger-ui-init.js`)
  assert.match(await init.text(), /\/v1\/openapi\.json/)
  await t.close()
})

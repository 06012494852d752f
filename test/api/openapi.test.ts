// The OpenAPI document: valid per a real validator, covering every mounted route, served with local-only docs.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createConfig, lintFromString } from '@redocly/openapi-core'
import { MODULES } from '../../src/resources/index.js'
import { startTestApp } from '../helpers/app.js'

test('GET /v1/openapi.json passes the Redocly validator with no errors', async () => {
  const t = await startTestApp()
  try {
    const r = await t.req('GET', '/v1/openapi.json')
    assert.equal(r.status, 200)
    assert.equal(r.body.openapi, '3.1.0')
    const config = await createConfig({ extends: ['minimal'] })
    const problems = await lintFromString({ source: r.text, absoluteRef: 'openapi.json', config })
    const errors = problems.filter((p) => p.severity === 'error')
    assert.deepEqual(
      errors.map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`),
      [],
    )
  } finally {
    await t.close()
  }
})

test('the document covers every route with parameters, bodies, responses, the error shape and bearer or cookie security', async () => {
  const t = await startTestApp()
  try {
    const doc = (await t.req('GET', '/v1/openapi.json')).body
    assert.equal(doc.components.securitySchemes.bearerAuth.scheme, 'bearer')
    assert.deepEqual(
      [doc.components.securitySchemes.cookieAuth.type, doc.components.securitySchemes.cookieAuth.in, doc.components.securitySchemes.cookieAuth.name],
      ['apiKey', 'cookie', 'taskd_session'],
    )
    assert.ok(doc.components.schemas.Error)
    // A nullable reference to a named schema must say so (a bare $ref would tell clients it is never null).
    assert.deepEqual(doc.components.schemas.Card.properties.created_by, { anyOf: [{ $ref: '#/components/schemas/UserRef' }, { type: 'null' }] })
    const bareRefs = JSON.stringify(doc).match(/"nullable":true/g)
    assert.equal(bareRefs, null, 'OpenAPI 3.1 spells nullable as a null type')
    // Every family's routes and documented receivers, read off the module list rather than written out again.
    const expected = MODULES.flatMap((m) => [...m.routes, ...(m.receivers ?? []).map((r) => r.doc)]).map((r) => `${r.method} ${r.path}`)
    // A spot-check of known routes, so the test fails if the module list or the document empties.
    for (const route of ['get /v1/users/me', 'post /v1/cards', 'get /v1/webhooks/events', 'post /v1/hooks/{path}', 'post /v1/agent-runs/{id}/approve'])
      assert.ok(expected.includes(route), route)
    const documented = Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops as object).map((m) => `${m} ${p}`))
    assert.deepEqual([...documented].sort(), [...expected].sort(), 'every mounted route is documented, and nothing else')
    for (const [p, ops] of Object.entries(doc.paths) as [string, Record<string, any>][]) {
      for (const [m, op] of Object.entries(ops)) {
        // The public operations: an incoming endpoint's URL and a published note's, whose keys are their random paths, and
        // a form's address, and a git connection's hook URL, proven by the host's signature.
        const open =
          p === '/v1/hooks/{path}' || p === '/v1/note-publications/public/{slug}' || p === '/v1/forms/public/{slug}' || p === '/v1/git/connections/{id}/hooks'
        // Signing in takes no credential (it answers 401 for wrong ones).
        const signIn = m === 'post' && p === '/v1/sessions'
        assert.ok((open || op.responses['401']) && op.responses['500'], `${m} ${p} documents its errors`)
        assert.equal(op.responses[open ? '500' : '401'].content['application/json'].schema.$ref, '#/components/schemas/Error')
        assert.deepEqual(op.security, open || signIn ? [] : [{ bearerAuth: [] }, { cookieAuth: [] }], `${m} ${p} security`)
        if (
          ['post', 'patch'].includes(m) &&
          !/\/(complete|test|sample|redeliver|restore|regenerate|export-workspace|read-all|timer\/stop|approve|cancel|dismiss|\{path\})$/.test(p)
        )
          assert.ok(op.requestBody, `${m} ${p} has a request body`)
        if (op.requestBody)
          assert.match(
            (op.requestBody.content['application/json'] ?? op.requestBody.content['multipart/form-data']).schema.$ref ?? '',
            /^#\/components\/schemas\/\w+Body$/,
            `${m} ${p}: the body is a named component`,
          )
        for (const name of p.match(/\{(\w+)\}/g) ?? [])
          assert.ok(
            op.parameters.some((x: any) => x.in === 'path' && `{${x.name}}` === name),
            `${m} ${p} documents ${name}`,
          )
      }
    }
    const cards = doc.paths['/v1/cards'].get.parameters.map((x: any) => x.name)
    for (const q of ['page', 'per_page', 'sort', 'filter', 'expand', 'board', 'completed', 'archived', 'trashed', 'state', 'assignee', 'team'])
      assert.ok(cards.includes(q), q)
  } finally {
    await t.close()
  }
})

test('/v1/docs and /v1/redoc render from assets served by taskd itself', async () => {
  const t = await startTestApp()
  try {
    // Each address as a person types it (the startup banner prints one): the page and every file it names, relative to
    // the address the browser ends up at after any redirect.
    for (const page of ['/v1/docs', '/v1/docs/', '/v1/docs?x=1', '/v1/redoc']) {
      const r = await fetch(t.url + page)
      assert.equal(r.status, 200, page)
      assert.match(r.headers.get('content-type') ?? '', /text\/html/)
      assert.match(r.headers.get('content-security-policy') ?? '', /default-src 'self'/)
      const text = await r.text()
      const refs = [...text.matchAll(/(?:src|href)=["']([^"']+)["']/g)].map((m) => m[1])
      assert.ok(refs.length > 0)
      for (const ref of refs) {
        assert.ok(!/^(https?:)?\/\//.test(ref), `${page} loads ${ref} from another host`)
        const asset = await fetch(new URL(ref, r.url))
        assert.equal(asset.status, 200, `${page} (at ${r.url}) asset ${ref}`)
      }
    }
    const bare = await fetch(`${t.url}/v1/docs?x=1`, { redirect: 'manual' })
    assert.equal(bare.status, 301)
    assert.equal(bare.headers.get('location'), 'docs/?x=1')
    const init = await fetch(`${t.url}/v1/docs/swagger-ui-init.js`)
    assert.match(await init.text(), /\/v1\/openapi\.json/)
  } finally {
    await t.close()
  }
})

test('operations have stable camelCase ids, list only the errors they can answer, and records are closed', async () => {
  const t = await startTestApp()
  try {
    const doc = (await t.req('GET', '/v1/openapi.json')).body
    const ops = Object.entries(doc.paths).flatMap(([p, o]) => Object.entries(o as Record<string, any>).map(([m, op]) => ({ key: `${m} ${p}`, op })))
    const ids = ops.map((o) => o.op.operationId)
    assert.equal(new Set(ids).size, ids.length, 'operationIds are unique')
    for (const id of ids) assert.match(id, /^[a-z][A-Za-z]+$/)
    const byKey = Object.fromEntries(ops.map((o) => [o.key, o.op]))
    for (const [key, id] of [
      ['get /v1/cards', 'listCards'],
      ['post /v1/cards', 'createCard'],
      ['post /v1/cards/{id}/move', 'moveCard'],
      ['get /v1/users/me', 'getMe'],
    ]) {
      assert.equal(byKey[key].operationId, id)
    }
    const statuses = (key: string) =>
      Object.keys(byKey[key].responses)
        .filter((s) => Number(s) >= 400)
        .join(',')
    assert.equal(statuses('get /v1/users/me'), '400,401,429,500', 'no body, no id: an unknown query parameter, auth, rate limit and internal errors')
    assert.equal(statuses('get /v1/cards/{id}'), '400,401,404,429,500')
    assert.equal(statuses('post /v1/boards'), '400,401,403,413,415,422,429,500')
    assert.equal(statuses('post /v1/tags'), '400,401,403,404,409,413,415,422,429,500')
    assert.equal(statuses('delete /v1/lists/{id}'), '400,401,403,404,409,422,429,500')
    assert.equal(
      statuses('post /v1/hooks/{path}'),
      '400,401,404,405,413,415,422,429,500,503',
      'the outcomes of an incoming request (400: JSON nested too deep)',
    )
    assert.ok(byKey['post /v1/hooks/{path}'].responses['202'], 'accepted')
    // Files: a multipart upload with an example, and the bytes as a binary answer with its partial, cached and refused forms.
    const upload = byKey['post /v1/files']
    assert.equal(upload.requestBody.content['multipart/form-data'].schema.$ref, '#/components/schemas/UploadFileBody')
    assert.ok(doc.components.schemas.UploadFileBody.example, 'the upload body has an example')
    assert.ok(doc.components.schemas.File.example, 'the file record has an example')
    assert.equal(statuses('post /v1/files'), '400,401,403,404,413,415,422,429,500')
    const content = byKey['get /v1/files/{id}/content'].responses
    for (const status of ['200', '206']) {
      assert.deepEqual(content[status].content['application/octet-stream'].schema, {
        type: 'string',
        format: 'binary',
        description: "The file's bytes (or the range asked for).",
      })
      assert.ok(content[status].headers.ETag && content[status].headers['Content-Security-Policy'], status)
    }
    assert.ok(content['206'].headers['Content-Range'])
    assert.ok(content['304'] && content['416'].content['application/json'])
    for (const name of ['Card', 'Board', 'List', 'Tag', 'User', 'Token', 'Webhook', 'WebhookLog', 'Error', 'UserRef', 'BulkResult']) {
      assert.equal(doc.components.schemas[name]?.additionalProperties, false, `${name} is closed, so a leaked field fails the response check`)
    }
    for (const record of ['Card', 'Board', 'List', 'Tag', 'Webhook', 'User', 'Token']) {
      const props = doc.components.schemas[record].properties
      assert.ok(props.created && (record === 'User' || record === 'Token' || props.updated), `${record} names its timestamps created/updated`)
    }
    for (const record of ['Card', 'Board', 'Webhook']) {
      const shape = JSON.stringify(doc.components.schemas[record].properties.created_by)
      assert.match(shape, /UserRef/, `${record}.created_by is a { id, name } reference`)
    }
  } finally {
    await t.close()
  }
})

test('the webhooks section documents the payload of every event taskd emits, and only those', async () => {
  const t = await startTestApp()
  try {
    const doc = (await t.req('GET', '/v1/openapi.json')).body
    const catalog = (await t.req('GET', '/v1/webhooks/events', { token: await t.token((await t.user('member')).id, 'read') })).body.items as {
      event: string
      available: boolean
      fields: { name: string }[]
    }[]
    const available = catalog.filter((e) => e.available).map((e) => e.event)
    assert.deepEqual(Object.keys(doc.webhooks).sort(), [...available].sort())
    for (const e of catalog.filter((x) => x.available)) {
      const payload = doc.webhooks[e.event].post.requestBody.content['application/json'].schema
      assert.deepEqual(Object.keys(payload.properties).sort(), ['data', 'event', 'id', 'timestamp'])
      assert.deepEqual(
        Object.keys(payload.properties.data.properties).sort(),
        e.fields.map((f) => f.name).sort(),
        `${e.event}: the document and the catalog list the same fields`,
      )
    }
    for (const e of ['card.created', 'card.moved', 'list.created', 'board.member_added', 'tag.deleted', 'webhook.test', 'question.asked', 'agent.completed'])
      assert.ok(available.includes(e), e)
    assert.equal(catalog.find((x) => x.event === 'audit.entry')!.available, true, 'audit.entry')
  } finally {
    await t.close()
  }
})

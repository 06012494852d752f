// Agents as users (their profile, tokens made by their owner, what they see), agent workflows, the kickoff_agent
// automation step, and signing secrets that agents use.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { AutomationRunner } from '../../src/resources/automations/runner.js'
import { agentApp } from '../helpers/agents.js'
import { seededApp } from '../helpers/app.js'

const refusedWith = (r: { status: number; text: string; body: any }, status: number, fields: string[]) => {
  assert.equal(r.status, status, r.text)
  if (fields.length) assert.deepEqual(r.body.error.details.map((d: { path: string }) => d.path).sort(), [...fields].sort(), r.text)
}

test('agents are users of kind agent with an owner and powers; bad profiles are a 422 naming the field, and nothing is stored', async () => {
  const c = await agentApp()
  try {
    const full = c.tokens.admin.full
    const create = (body: Record<string, unknown>, token = full) => c.t.req('POST', '/v1/users', { token, body })
    const r = await create({
      kind: 'agent',
      name: 'Robo',
      agent: { owner: c.member.id, wake_url: `${c.receiver.url}/ok`, signing_secret: c.secret.id, powers: ['auto_start', 'local_access'] },
    })
    assert.equal(r.status, 201, r.text)
    const robo = r.body.user
    assert.equal(robo.kind, 'agent')
    assert.equal(robo.role, 'member')
    assert.match(robo.email, /^agent-[a-z0-9]+@agents\.invalid$/)
    assert.deepEqual(robo.agent, {
      owner: { id: c.member.id, name: robo.agent.owner.name },
      wake_url: `${c.receiver.url}/ok`,
      signing_secret: c.secret.id,
      powers: ['auto_start', 'local_access'],
    })
    const profile = { owner: c.member.id, powers: ['local_access'] }
    refusedWith(await create({ kind: 'agent', name: 'A' }), 422, ['agent'])
    refusedWith(await create({ kind: 'agent', name: 'A', role: 'admin', agent: profile }), 422, ['role'])
    refusedWith(await create({ name: 'A', email: 'a@example.com', agent: profile }), 422, ['agent'])
    refusedWith(await create({ name: 'A' }), 422, ['email'])
    refusedWith(await create({ kind: 'agent', name: 'A', agent: { ...profile, owner: 'nobody' } }), 422, ['agent.owner'])
    refusedWith(await create({ kind: 'agent', name: 'A', agent: { ...profile, owner: robo.id } }), 422, ['agent.owner'])
    refusedWith(await create({ kind: 'agent', name: 'A', agent: { ...profile, powers: [] } }), 422, ['agent.powers'])
    refusedWith(await create({ kind: 'agent', name: 'A', agent: { ...profile, powers: ['telepathy'] } }), 422, ['agent.powers.0'])
    for (const wake_url of ['ftp://127.0.0.1/x', 'http://127.0.0.1/x#frag', 'http://u:p@127.0.0.1/x', 'not a url']) {
      refusedWith(await create({ kind: 'agent', name: 'A', agent: { ...profile, wake_url } }), 422, ['agent.wake_url'])
    }
    refusedWith(await create({ kind: 'agent', name: 'A', agent: { ...profile, signing_secret: 'nope' } }), 422, ['agent.signing_secret'])
    refusedWith(await create({ kind: 'agent', name: 'A', agent: { ...profile, powers: ['local_access', 'local_access'] } }), 422, ['agent.powers'])
    refusedWith(await create({ kind: 'agent', name: 'A', agent: { ...profile, owner: 'nobody', signing_secret: 'nope' } }), 422, [
      'agent.owner',
      'agent.signing_secret',
    ])
    refusedWith(await create({ kind: 'agent', name: 'A', agent: profile }, c.tokens.member.write), 403, [])
    const users = (await c.t.req('GET', '/v1/users?per_page=100', { token: c.tokens.member.read })).body.items
    assert.deepEqual(
      users.filter((u: { kind: string }) => u.kind === 'agent').map((u: { name: string }) => u.name),
      ['Robo'],
      'nothing else was stored',
    )

    // Who sees the wake URL and secret: owners, admins, the owner of the agent and the agent itself.
    const other = await c.t.user('member', 'Other')
    const otherToken = await c.t.token(other.id, 'write')
    const hidden = { owner: robo.agent.owner, wake_url: null, signing_secret: null, powers: ['auto_start', 'local_access'] }
    assert.deepEqual((await c.t.req('GET', `/v1/users/${robo.id}`, { token: otherToken })).body.user.agent, hidden)
    const listed = async (token: string) =>
      (await c.t.req('GET', '/v1/users?per_page=100', { token })).body.items.find((u: { id: string }) => u.id === robo.id).agent
    assert.deepEqual(await listed(otherToken), hidden, 'the list hides them too')
    assert.deepEqual(await listed(c.tokens.member.read), robo.agent, 'the agent’s owner sees them')
    assert.deepEqual(await listed(c.tokens.admin.read), robo.agent, 'admins see them')
    assert.equal((await c.t.req('GET', `/v1/users/${robo.id}`, { token: c.tokens.member.read })).body.user.agent.wake_url, `${c.receiver.url}/ok`)
    assert.equal((await c.t.req('GET', `/v1/users/${c.member.id}`, { token: c.tokens.member.read })).body.user.agent, undefined, 'people have no profile')

    // Tokens for an agent: its owner (a plain member) and admins make them; nobody else; only for agents.
    const tok = (body: Record<string, unknown>, token: string) => c.t.req('POST', '/v1/tokens', { token, body: { name: 't', ...body } })
    const own = await tok({ user: robo.id }, c.tokens.member.write)
    assert.equal(own.status, 201, own.text)
    assert.deepEqual(own.body.token.owner, { id: robo.id, name: 'Robo' })
    assert.equal((await tok({ user: robo.id }, c.tokens.admin.write)).status, 201)
    refusedWith(await tok({ user: robo.id }, otherToken), 403, [])
    refusedWith(await tok({ user: c.admin.id }, c.tokens.member.write), 422, ['user'])
    const unknown = await tok({ user: 'nobody' }, c.tokens.member.write)
    refusedWith(unknown, 404, [])
    assert.equal(unknown.body.error.message, 'No such user.')
    refusedWith(await tok({ user: robo.id, permission: 'full' }, c.tokens.admin.full), 422, ['permission'])
    refusedWith(await tok({ user: robo.id }, c.tokens.member.read), 403, [])
    const robosTokens = (await c.t.req('GET', `/v1/tokens?per_page=100`, { token: c.tokens.admin.read })).body.items.filter(
      (t: { owner: { id: string } }) => t.owner.id === robo.id,
    )
    assert.equal(robosTokens.length, 2, 'the refused requests made no token')
    const agentToken = own.body.value as string
    const me = (await c.t.req('GET', '/v1/users/me', { token: agentToken })).body.user
    assert.deepEqual([me.id, me.agent.powers], [robo.id, ['auto_start', 'local_access']])

    // An agent sees only the boards it is a member of.
    const boards = async () => (await c.t.req('GET', '/v1/boards', { token: agentToken })).body.items.map((b: { id: string }) => b.id)
    assert.deepEqual(await boards(), [])
    assert.equal((await c.t.req('GET', `/v1/boards/${c.board.id}`, { token: agentToken })).status, 404)
    assert.equal((await c.t.req('POST', `/v1/boards/${c.board.id}/members`, { token: c.tokens.admin.write, body: { user: robo.id } })).status, 201)
    assert.deepEqual(await boards(), [c.board.id])
    assert.equal((await c.t.req('GET', `/v1/boards/${c.board.id}`, { token: agentToken })).status, 200)

    // The profile changes with PATCH (owners and admins); a person has none, an agent stays a member.
    const patch = (body: Record<string, unknown>, id = robo.id) => c.t.req('PATCH', `/v1/users/${id}`, { token: full, body })
    const changed = await patch({ agent: { wake_url: null, powers: ['local_access'] } })
    assert.equal(changed.status, 200, changed.text)
    assert.deepEqual(
      [changed.body.user.agent.wake_url, changed.body.user.agent.powers, changed.body.user.agent.signing_secret],
      [null, ['local_access'], c.secret.id],
    )
    refusedWith(await patch({ agent: { powers: [] } }), 422, ['agent.powers'])
    refusedWith(await patch({ agent: { powers: ['auto_start'], owner: robo.id } }), 422, ['agent.owner'])
    refusedWith(await patch({ name: 'Renamed', agent: { powers: ['auto_start'], wake_url: 'http://127.0.0.1/x#f' } }), 422, ['agent.wake_url'])
    refusedWith(await patch({ agent: { signing_secret: 'nope' } }), 422, ['agent.signing_secret'])
    refusedWith(await patch({ role: 'admin' }), 422, ['role'])
    refusedWith(await c.t.req('PATCH', `/v1/users/${robo.id}`, { token: c.tokens.owner.full, body: { role: 'owner' } }), 422, ['role'])
    refusedWith(await c.t.req('PATCH', `/v1/users/${robo.id}`, { token: c.tokens.member.write, body: { agent: { powers: ['auto_start'] } } }), 403, [])
    const after = (await c.t.req('GET', `/v1/users/${robo.id}`, { token: full })).body.user
    assert.deepEqual([after.name, after.role, after.agent], ['Robo', 'member', changed.body.user.agent], 'refused PATCHes changed nothing')
    const reowned = await patch({ agent: { owner: other.id, wake_url: `${c.receiver.url}/new` } })
    assert.deepEqual(reowned.body.user.agent.owner, { id: other.id, name: 'Other' })
    assert.equal(
      (await c.t.req('GET', `/v1/users/${robo.id}`, { token: otherToken })).body.user.agent.wake_url,
      `${c.receiver.url}/new`,
      'the new owner sees it',
    )
    assert.equal((await c.t.req('GET', `/v1/users/${robo.id}`, { token: c.tokens.member.read })).body.user.agent.wake_url, null, 'the old owner no longer does')
    assert.equal((await tok({ user: robo.id }, c.tokens.member.write)).status, 403, 'nor makes its tokens')
    refusedWith(await patch({ agent: { powers: ['local_access'] } }, c.member.id), 422, ['agent'])

    // A signing secret an agent uses cannot be deleted.
    await patch({ agent: { signing_secret: c.secret.id } })
    const del = await c.t.req('DELETE', `/v1/signing-secrets/${c.secret.id}`, { token: c.tokens.admin.write })
    assert.equal(del.status, 409, del.text)
    assert.match(del.body.error.message, /agent Robo/)
  } finally {
    await c.close()
  }
})

test('an agent’s wake URL on a private network is refused unless the instance allows private targets', async () => {
  const { t, tokens, member } = await seededApp()
  try {
    const body = { kind: 'agent', name: 'Robo', agent: { owner: member.id, wake_url: 'http://127.0.0.1:9/wake', powers: ['auto_start'] } }
    const r = await t.req('POST', '/v1/users', { token: tokens.admin.full, body })
    refusedWith(r, 422, ['agent.wake_url'])
    assert.match(r.body.error.details[0].message, /TASKD_ALLOW_PRIVATE_TARGETS/)
    const made = await t.req('POST', '/v1/users', { token: tokens.admin.full, body: { ...body, agent: { ...body.agent, wake_url: undefined } } })
    assert.equal(made.status, 201, made.text)
    const patched = await t.req('PATCH', `/v1/users/${made.body.user.id}`, { token: tokens.admin.full, body: { agent: { wake_url: 'http://10.0.0.1/wake' } } })
    refusedWith(patched, 422, ['agent.wake_url'])
  } finally {
    await t.close()
  }
})

test('agent workflows: board members manage them, one default per board, each step an agent on the board; 422s name the field', async () => {
  const c = await agentApp()
  try {
    const robo = await c.agent('Robo', { powers: ['local_access'] })
    const outside = await c.agent('Outside', { powers: ['local_access'] }, false)
    const tok = c.tokens.member.write
    const create = (body: Record<string, unknown>, token = tok) =>
      c.t.req('POST', '/v1/agent-workflows', { token, body: { name: 'Flow', board: c.board.id, steps: [{ name: 'Do', agent: robo.id }], ...body } })
    const first = await create({ default: true })
    assert.equal(first.status, 201, first.text)
    const wf = first.body.agent_workflow
    assert.deepEqual(wf.steps, [{ index: 1, name: 'Do', agent: { id: robo.id, name: 'Robo' }, launch_url: null, signing_secret: null, instructions: null }])
    assert.equal(wf.default, true)
    const second = (await create({ name: 'Other', default: true })).body.agent_workflow
    const list = async (qs = '') => (await c.t.req('GET', `/v1/agent-workflows?board=${c.board.id}&sort=name${qs}`, { token: c.tokens.member.read })).body.items
    assert.deepEqual(
      (await list()).map((w: { name: string; default: boolean }) => [w.name, w.default]),
      [
        ['Flow', false],
        ['Other', true],
      ],
      'the new default took over',
    )
    const back = await c.t.req('PATCH', `/v1/agent-workflows/${wf.id}`, { token: tok, body: { default: true, name: 'Flow 2' } })
    assert.deepEqual([back.body.agent_workflow.name, back.body.agent_workflow.default], ['Flow 2', true])
    assert.deepEqual(
      (await list('&filter=default=true')).map((w: { id: string }) => w.id),
      [wf.id],
    )
    refusedWith(await create({ steps: [{ name: 'X', agent: c.member.id }] }), 422, ['steps.0.agent'])
    refusedWith(
      await create({
        steps: [
          { name: 'Do', agent: robo.id },
          { name: 'X', agent: outside.id },
        ],
      }),
      422,
      ['steps.1.agent'],
    )
    refusedWith(await create({ steps: [{ name: 'X', agent: robo.id, launch_url: 'http://127.0.0.1/x#frag' }] }), 422, ['steps.0.launch_url'])
    refusedWith(await create({ steps: [{ name: 'X', agent: robo.id, signing_secret: 'nope' }] }, c.tokens.admin.write), 422, ['steps.0.signing_secret'])
    refusedWith(await create({ steps: [] }), 422, ['steps'])
    refusedWith(await create({ steps: Array.from({ length: 21 }, (_, i) => ({ name: `S${i}`, agent: robo.id })) }), 422, ['steps'])
    refusedWith(await create({ steps: [{ name: 'X', agent: robo.id, signing_secret: c.secret.id }] }), 403, [])
    refusedWith(await create({}, c.tokens.outsider.write), 404, [])
    refusedWith(await create({}, c.tokens.member.read), 403, [])
    assert.equal((await list()).length, 2, 'nothing else was stored')
    const signed = await create({ name: 'Signed', steps: [{ name: 'X', agent: robo.id, signing_secret: c.secret.id }] }, c.tokens.admin.write)
    assert.equal(signed.status, 201, signed.text)
    assert.equal((await c.t.req('DELETE', `/v1/signing-secrets/${c.secret.id}`, { token: c.tokens.admin.write })).status, 409, 'a secret a workflow uses stays')
    assert.equal((await c.t.req('GET', `/v1/agent-workflows/${wf.id}`, { token: c.tokens.outsider.read })).status, 404)
    assert.equal((await c.t.req('DELETE', `/v1/agent-workflows/${second.id}`, { token: tok })).status, 204)
    assert.equal((await c.t.req('GET', `/v1/agent-workflows/${second.id}`, { token: tok })).status, 404)
  } finally {
    await c.close()
  }
})

test('the kickoff_agent automation step hands a card an incoming webhook made to an agent', async () => {
  const c = await agentApp()
  const runner = new AutomationRunner(c.t.deps, { log: () => {} })
  try {
    const robo = await c.agent('Robo', { wake_url: `${c.receiver.url}/ok`, powers: ['auto_start'] })
    const ep = (await c.t.req('POST', '/v1/webhooks/incoming', { token: c.tokens.admin.write, body: { name: 'Intake' } })).body.incoming_webhook
    const a = await c.t.req('POST', '/v1/automations', {
      token: c.tokens.admin.write,
      body: {
        name: 'triage',
        board: c.board.id,
        trigger: { type: 'incoming_webhook', endpoint: ep.id },
        steps: [
          { type: 'create_card', title: '{webhook.body.title}' },
          { type: 'kickoff_agent', card: '{steps.1.card.id}', agent: robo.id, message: 'Triage {webhook.body.title}' },
        ],
      },
    })
    assert.equal(a.status, 201, a.text)
    const sent = await fetch(c.t.url + new URL(ep.url).pathname, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"title":"Printer on fire"}',
    })
    assert.equal(sent.status, 202)
    await runner.runOnce()
    const [run] = (await c.t.req('GET', `/v1/automations/${a.body.automation.id}/runs`, { token: c.tokens.admin.write })).body.items
    assert.equal(run.status, 'succeeded', JSON.stringify(run))
    const kickoff = run.steps[1].output.kickoff
    assert.deepEqual([kickoff.agent.id, kickoff.message, kickoff.requested_by.kind], [robo.id, 'Triage Printer on fire', 'incoming_webhook'])
    await c.dispatcher.runOnce()
    assert.equal((await c.getKickoff(kickoff.id)).status, 'delivered')
    assert.equal(c.receiver.hits.at(-1)!.json.card.title, 'Printer on fire')
  } finally {
    await runner.stop(1000)
    await c.close()
  }
})

// The whole life of agent runs driven through the API: the agent reports with its own token, people approve, return,
// cancel and answer, a workflow hands the card on, a quiet run stalls on the injected clock. Every agent and question
// event reaches a real local webhook receiver with its data exactly as the catalog documents.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { eventCatalog } from '../../src/events/catalog.js'
import { OutboxScheduler } from '../../src/delivery/scheduler.js'
import { agentApp } from '../helpers/agents.js'

const MIN = 60_000

test('a run from kickoff to approval and handoff, with every agent and question event received as the catalog says', async () => {
  const c = await agentApp()
  const scheduler = new OutboxScheduler(c.t.deps, { log: () => {} })
  try {
    const tok = c.tokens.member.write
    const sub = await c.t.req('POST', '/v1/webhooks', {
      token: c.tokens.admin.write,
      body: { name: 'agents', url: `${c.receiver.url}/ok`, events: ['agent.*', 'question.*', 'card.completed'], boards: [] },
    })
    assert.equal(sub.status, 201, sub.text)
    const wake = { wake_url: `${c.receiver.url}/ok`, signing_secret: c.secret.id, powers: ['auto_start'] }
    const writer = await c.agent('Writer', wake)
    const editor = await c.agent('Editor', wake)
    const wf = await c.t.req('POST', '/v1/agent-workflows', {
      token: tok,
      body: {
        name: 'Write then edit',
        board: c.board.id,
        default: true,
        steps: [
          { name: 'Draft', agent: writer.id, instructions: 'Draft it' },
          { name: 'Edit', agent: editor.id },
        ],
      },
    })
    assert.equal(wf.status, 201, wf.text)
    const card = await c.card()
    // No agent named: the board's default workflow's first step.
    const k = await c.kickoff({ card: card.id })
    assert.deepEqual([k.agent.id, k.workflow, k.step], [writer.id, wf.body.agent_workflow.id, { index: 1, name: 'Draft' }])
    await c.dispatcher.runOnce()
    assert.equal(c.receiver.hits.at(-1)!.json.instructions, 'Draft it')
    const run = k.run as string
    const act = (body: Record<string, unknown>, token = writer.token) => c.t.req('POST', `/v1/agent-runs/${run}/activity`, { token, body })
    const person = (what: string, body?: unknown, token = tok) => c.t.req('POST', `/v1/agent-runs/${run}/${what}`, { token, body })
    const status = async () => (await c.getRun(run)).status

    assert.equal((await act({ type: 'started', message: 'On it' })).body.agent_run.status, 'running')
    assert.equal((await act({ type: 'started' }, editor.token)).status, 403, 'another agent cannot report on the run')
    assert.equal((await act({ type: 'started' }, tok)).status, 403, 'nor can a person')
    assert.equal((await act({ type: 'blocked', reason: 'Need the price list' })).body.agent_run.status, 'blocked')
    assert.equal((await act({ type: 'heartbeat' })).body.agent_run.status, 'running')

    // A question: the run waits; the board's people are told in their inbox; an answer lets it go on.
    const asked = await c.t.req('POST', `/v1/agent-runs/${run}/questions`, { token: writer.token, body: { question: 'Which price?' } })
    assert.equal(asked.status, 201, asked.text)
    const q = asked.body.question
    assert.deepEqual([q.status, q.asked_by], ['open', { id: writer.id, name: 'Writer' }])
    assert.equal(await status(), 'needs_input')
    const inbox = (await c.t.req('GET', '/v1/inbox', { token: c.tokens.member.read })).body.items
    assert.ok(
      inbox.some((i: { kind: string; question: string }) => i.kind === 'question' && i.question === q.id),
      'in the requester’s inbox',
    )
    const adminInbox = (await c.t.req('GET', '/v1/inbox', { token: c.tokens.admin.read })).body.items
    assert.ok(
      adminInbox.some((i: { kind: string }) => i.kind === 'question'),
      'and a board member’s',
    )
    const qpath = `/v1/agent-runs/${run}/questions/${q.id}`
    assert.equal((await c.t.req('POST', `${qpath}/answer`, { token: writer.token, body: { answer: 'Any' } })).status, 403, 'an agent cannot answer')
    const answered = await c.t.req('POST', `${qpath}/answer`, { token: tok, body: { answer: '49 EUR' } })
    assert.equal(answered.status, 200, answered.text)
    assert.deepEqual([answered.body.question.status, answered.body.question.answer], ['answered', '49 EUR'])
    assert.equal((await c.t.req('POST', `${qpath}/dismiss`, { token: tok })).status, 409, 'only an open question')
    assert.equal(await status(), 'running')
    const q2 = (await c.t.req('POST', `/v1/agent-runs/${run}/questions`, { token: writer.token, body: { question: 'Add a picture?' } })).body.question
    assert.equal((await c.t.req('POST', `/v1/agent-runs/${run}/questions/${q2.id}/dismiss`, { token: tok })).body.question.status, 'dismissed')
    assert.equal(await status(), 'running')

    // Quiet for longer than TASKD_AGENT_STALL_MINUTES (30): flagged stalled; a heartbeat brings it back.
    c.t.clock.advance(29 * MIN)
    await c.dispatcher.runOnce()
    assert.equal(await status(), 'running', 'not yet')
    c.t.clock.advance(1 * MIN + 1)
    await c.dispatcher.runOnce()
    assert.equal(await status(), 'stalled')
    assert.equal((await act({ type: 'heartbeat' })).body.agent_run.status, 'running')

    // A proposal: the agent cannot approve it; returned with feedback; proposed again; approved → handoff.
    assert.equal((await act({ type: 'done_proposed', summary: 'Draft is in the description' })).body.agent_run.status, 'done_proposed')
    assert.equal((await person('approve', undefined, writer.token)).status, 403, 'an agent token cannot approve its own proposal')
    assert.equal((await person('return', { feedback: 'Shorter' }, c.tokens.member.read)).status, 403)
    const returned = await person('return', { feedback: 'Shorter please' })
    assert.equal(returned.body.agent_run.status, 'running')
    assert.equal((await person('approve')).status, 409, 'nothing proposed now')
    await act({ type: 'done_proposed', summary: 'Shortened' })
    const approved = await person('approve')
    assert.equal(approved.status, 200, approved.text)
    assert.equal(approved.body.agent_run.status, 'completed')
    assert.equal((await act({ type: 'heartbeat' })).status, 409, 'a finished run takes no more reports')
    assert.equal((await c.t.req('GET', `/v1/cards/${card.id}`, { token: tok })).body.card.completed, false, 'a later step remains: the card is not done yet')

    // The next step's agent got a new kickoff; its run is approved at the last step, which completes the card.
    const runs = (await c.t.req('GET', `/v1/agent-runs?card=${card.id}`, { token: tok })).body.items
    assert.deepEqual(
      runs.map((r: { agent: { name: string }; status: string; step: { index: number } }) => [r.agent.name, r.status, r.step.index]),
      [
        ['Editor', 'pending', 2],
        ['Writer', 'completed', 1],
      ],
    )
    await c.dispatcher.runOnce()
    const run2 = runs[0].id as string
    await c.t.req('POST', `/v1/agent-runs/${run2}/activity`, { token: editor.token, body: { type: 'done_proposed', summary: 'Edited' } })
    assert.equal((await c.t.req('POST', `/v1/agent-runs/${run2}/approve`, { token: tok })).body.agent_run.status, 'completed')
    const done = (await c.t.req('GET', `/v1/cards/${card.id}?expand=agent_runs`, { token: tok })).body.card
    assert.equal(done.completed, true)
    assert.deepEqual(
      done.expand.agent_runs.map((r: { id: string }) => r.id),
      [run2, run],
    )

    // A run that fails, one that is cancelled, one that hands off explicitly, and a kickoff that expires.
    const k3 = await c.kickoff({ card: (await c.card('Second')).id, agent: writer.id })
    assert.equal((await c.t.req('POST', `/v1/agent-runs/${k3.run}/activity`, { token: writer.token, body: { type: 'failed' } })).status, 422)
    assert.equal(
      (await c.t.req('POST', `/v1/agent-runs/${k3.run}/activity`, { token: writer.token, body: { type: 'failed', error: 'No access' } })).body.agent_run.status,
      'failed',
    )
    const k4 = await c.kickoff({ card: (await c.card('Third')).id, agent: writer.id })
    assert.equal((await c.t.req('POST', `/v1/agent-runs/${k4.run}/cancel`, { token: writer.token })).status, 403)
    assert.equal((await c.t.req('POST', `/v1/agent-runs/${k4.run}/cancel`, { token: tok })).body.agent_run.status, 'cancelled')
    assert.equal((await c.t.req('POST', `/v1/agent-runs/${k4.run}/cancel`, { token: tok })).status, 409)
    const k5 = await c.kickoff({ card: (await c.card('Fourth')).id, workflow: wf.body.agent_workflow.id })
    assert.equal((await c.t.req('POST', `/v1/agent-runs/${k5.run}/activity`, { token: writer.token, body: { type: 'handoff', to_step: 3 } })).status, 422)
    assert.equal((await c.t.req('POST', `/v1/agent-runs/${k5.run}/activity`, { token: writer.token, body: { type: 'handoff', to_step: 'Edit' } })).status, 201)
    const desk = await c.agent('Desk', { powers: ['local_access'] })
    const k6 = await c.kickoff({ card: (await c.card('Fifth')).id, agent: desk.id, expires_in_minutes: 1 })
    await c.dispatcher.runOnce()
    c.t.clock.advance(MIN)
    await c.dispatcher.runOnce()
    assert.equal((await c.getKickoff(k6.id)).status, 'expired')

    // Every event reached the receiver, its data exactly the catalog's fields.
    while ((await scheduler.runOnce()) > 0);
    const received = c.receiver.hits.filter((h) => h.headers['x-webhook-event'])
    const names = new Set(received.map((h) => h.json.event as string))
    const catalog = eventCatalog()
    const wanted = catalog.filter((e) => e.family === 'agent' || e.family === 'question').map((e) => e.event)
    assert.equal(wanted.length, 14)
    assert.deepEqual(
      [...wanted].filter((n) => !names.has(n)),
      [],
      'every agent and question event was received',
    )
    for (const h of received) {
      const entry = catalog.find((e) => e.event === h.json.event)!
      assert.ok(entry.available, `${entry.event} is available`)
      assert.deepEqual(Object.keys(h.json.data).sort(), entry.fields.map((f) => f.name).sort(), `${entry.event} data matches the catalog`)
      if (entry.family === 'agent') {
        assert.deepEqual(Object.keys(h.json.data.agent).sort(), ['id', 'name'])
        assert.deepEqual(Object.keys(h.json.data.card).sort(), ['id', 'key', 'title', 'url'])
        assert.equal(typeof h.json.data.run.status, 'string')
      }
    }
    const handoff = received.find((h) => h.json.event === 'agent.handoff')!.json.data
    assert.deepEqual([handoff.agent.name, handoff.from_agent.name, handoff.step, handoff.run.status], ['Editor', 'Writer', 'Edit', 'pending'])
    const approvedEv = received.find((h) => h.json.event === 'agent.approved')!.json.data
    assert.deepEqual(approvedEv.approved_by, { id: c.member.id, name: approvedEv.approved_by.name })
    assert.equal(received.filter((h) => h.json.event === 'card.completed').length, 1, 'only the last step’s approval completed the card')

    // The run's activity tells the story, oldest first.
    const activity = (await c.t.req('GET', `/v1/agent-runs/${run}/activity`, { token: c.tokens.member.read })).body.items
    assert.deepEqual(
      activity.map((a: { type: string }) => a.type),
      ['delivered', 'started', 'blocked', 'question', 'answered', 'question', 'dismissed', 'stalled', 'done_proposed', 'returned', 'done_proposed', 'approved'],
    )
    assert.deepEqual(activity[1].by, { id: writer.id, name: 'Writer', kind: 'agent' })
  } finally {
    await scheduler.stop(1000)
    await c.close()
  }
})

test('agent runs: lists filter by status, agent and card; outsiders see none; a bad report is a 422 naming its field', async () => {
  const c = await agentApp()
  try {
    const robo = await c.agent('Robo', { powers: ['local_access'] })
    const other = await c.agent('Other', { powers: ['local_access'] })
    const a = await c.card('A')
    const b = await c.card('B')
    const k1 = await c.kickoff({ card: a.id, agent: robo.id })
    const k2 = await c.kickoff({ card: b.id, agent: other.id })
    await c.t.req('POST', `/v1/agent-runs/${k1.run}/activity`, { token: robo.token, body: { type: 'started' } })
    const list = async (qs: string, token = c.tokens.member.read) => (await c.t.req('GET', `/v1/agent-runs?${qs}`, { token })).body
    assert.deepEqual(
      (await list('status=running')).items.map((r: { id: string }) => r.id),
      [k1.run],
    )
    assert.deepEqual(
      (await list(`agent=${other.id}`)).items.map((r: { id: string }) => r.id),
      [k2.run],
    )
    assert.deepEqual(
      (await list(`card=${a.id}`)).items.map((r: { id: string }) => r.id),
      [k1.run],
    )
    assert.deepEqual(
      (await list(`filter=${encodeURIComponent('status="pending"')}`)).items.map((r: { id: string }) => r.id),
      [k2.run],
    )
    assert.equal((await list('')).totalItems, 2)
    assert.equal((await list('', c.tokens.outsider.read)).totalItems, 0)
    assert.equal((await c.t.req('GET', `/v1/agent-runs/${k1.run}`, { token: c.tokens.outsider.read })).status, 404)
    assert.equal((await c.t.req('GET', '/v1/agent-kickoffs', { token: c.tokens.outsider.read })).body.totalItems, 0)
    assert.equal((await c.t.req('GET', '/v1/agent-runs?status=bogus', { token: c.tokens.member.read })).status, 400)
    const report = async (body: unknown, field: string) => {
      const r = await c.t.req('POST', `/v1/agent-runs/${k1.run}/activity`, { token: robo.token, body })
      assert.equal(r.status, 422, r.text)
      assert.deepEqual(
        r.body.error.details.map((d: { path: string }) => d.path),
        [field],
        r.text,
      )
    }
    await report({ type: 'done' }, 'type')
    await report({ type: 'blocked' }, 'reason')
    await report({ type: 'done_proposed' }, 'summary')
    await report({ type: 'done_proposed', summary: '   ' }, 'summary')
    await report({ type: 'started', to_step: 2 }, 'to_step')
    await report({ type: 'handoff' }, 'to_step') // not part of a workflow
    assert.equal((await c.getRun(k1.run)).status, 'running', 'nothing changed')

    // A card moved to a board the member is not on takes its runs and kickoffs along, out of the member's sight.
    const made = (await c.t.req('POST', '/v1/boards', { token: c.tokens.admin.write, body: { name: 'Elsewhere' } })).body
    const elsewhere = made.board
    const moved = await c.t.req('POST', `/v1/cards/${a.id}/move`, { token: c.tokens.admin.write, body: { board: elsewhere.id, list: made.lists[0].id } })
    assert.equal(moved.status, 200, moved.text)
    assert.equal((await c.t.req('GET', `/v1/agent-runs/${k1.run}`, { token: c.tokens.member.read })).status, 404)
    assert.equal((await c.t.req('GET', `/v1/agent-kickoffs/${k1.id}`, { token: c.tokens.member.read })).status, 404)
    assert.deepEqual(
      (await list('')).items.map((r: { id: string }) => r.id),
      [k2.run],
    )
    assert.equal((await c.t.req('GET', `/v1/agent-runs/${k1.run}`, { token: c.tokens.admin.read })).body.agent_run.board, elsewhere.id)
  } finally {
    await c.close()
  }
})

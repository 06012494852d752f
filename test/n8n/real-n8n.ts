// npm run test:n8n (scripts/test-n8n.sh): the package n8n-nodes-taskd in a real n8n. Starts `taskd serve` and n8n
// (TASKD_N8N_BIN) on 127.0.0.1 with SQLite and the built package loaded through N8N_CUSTOM_EXTENSIONS; sets n8n up
// through its own REST API (owner, API key, credential, workflows); then: the credential test, the trigger workflow
// activated (a subscription `n8n: <workflow name>` in taskd), a card made in taskd arriving as an n8n execution, a
// delivery with a wrong signature refused, the action node's operations run in a workflow, and deactivation removing
// the subscription. n8n's modules that fetch from the internet are disabled: all traffic stays on 127.0.0.1.
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { createHmac, randomUUID } from 'node:crypto'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'
import { ROOT, serve, stopChild, type Served } from '../helpers/serve.js'

const N8N_BIN = process.env.TASKD_N8N_BIN ?? ''
const PACKAGE_DIST = path.join(ROOT, 'integrations/n8n/dist')

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const srv = net.createServer()
    srv.once('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo
      srv.close(() => resolve(port))
    })
  })

/** Polls `check` until it returns a value (not undefined) or `ms` pass: a wait for a signal, not a fixed sleep. */
async function until<T>(what: string, check: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const value = await check()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 250))
  }
}

interface N8n {
  url: string
  child: ChildProcess
  output(): string
  stop(): Promise<void>
}

async function startN8n(dir: string): Promise<N8n> {
  fs.mkdirSync(dir, { recursive: true })
  const port = await freePort()
  const brokerPort = await freePort()
  const url = `http://127.0.0.1:${port}`
  const child = spawn(process.execPath, [N8N_BIN, 'start'], {
    cwd: dir,
    env: {
      PATH: process.env.PATH,
      HOME: dir,
      N8N_USER_FOLDER: dir,
      N8N_PORT: String(port),
      N8N_LISTEN_ADDRESS: '127.0.0.1',
      N8N_HOST: '127.0.0.1',
      N8N_PROTOCOL: 'http',
      N8N_WEBHOOK_URL: `${url}/`,
      N8N_RUNNERS_BROKER_PORT: String(brokerPort),
      N8N_RUNNERS_MODE: 'internal',
      DB_TYPE: 'sqlite',
      N8N_CUSTOM_EXTENSIONS: PACKAGE_DIST,
      N8N_SECURE_COOKIE: 'false',
      N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
      // Nothing that would call out to the internet.
      N8N_DIAGNOSTICS_ENABLED: 'false',
      N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
      N8N_TEMPLATES_ENABLED: 'false',
      N8N_PERSONALIZATION_ENABLED: 'false',
      N8N_HIRING_BANNER_ENABLED: 'false',
      N8N_DYNAMIC_BANNERS_ENABLED: 'false',
      N8N_AI_ENABLED: 'false',
      N8N_LICENSE_AUTO_RENEW_ENABLED: 'false',
      N8N_LICENSE_SERVER_URL: 'http://127.0.0.1:9/v1', // were anything to call it, it would reach nothing
      N8N_COMMUNITY_PACKAGES_ENABLED: 'false',
      N8N_DISABLED_MODULES: 'mcp-registry,instance-ai,agents,workflow-builder,chat-hub,quick-connect,community-packages',
      EXTERNAL_FRONTEND_HOOKS_URLS: '',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  let failed: Error | undefined
  child.once('error', (err) => (failed = err))
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()))
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()))
  const stop = () => stopChild(child, 20_000)
  const n8n = { url, child, output: () => out, stop }
  try {
    await until(
      'n8n to start',
      async () => {
        if (failed || child.exitCode !== null) throw new Error(`n8n exited: ${failed?.message ?? ''} ${out}`)
        return /Editor is now accessible/.test(out) ? true : undefined
      },
      180_000,
    )
  } catch (err) {
    await stop()
    throw new Error(`${(err as Error).message}\n${out.slice(-3000)}`, { cause: err })
  }
  return n8n
}

/** A JSON request; throws with the body on an unexpected status. */
async function json(method: string, url: string, opts: { headers?: Record<string, string>; body?: unknown; expect?: number } = {}): Promise<any> {
  const res = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json', ...opts.headers },
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  })
  const text = await res.text()
  assert.equal(res.status, opts.expect ?? (method === 'POST' ? res.status : 200), `${method} ${url}: ${res.status} ${text.slice(0, 500)}`)
  if (opts.expect === undefined && res.status >= 400) throw new Error(`${method} ${url}: ${res.status} ${text.slice(0, 500)}`)
  return text ? JSON.parse(text) : undefined
}

test('n8n-nodes-taskd in a real n8n: credential, trigger, signatures, actions, deactivation', { timeout: 600_000 }, async () => {
  assert.ok(N8N_BIN && fs.existsSync(N8N_BIN), 'TASKD_N8N_BIN must name n8n/bin/n8n: run `npm run test:n8n`')
  assert.ok(fs.existsSync(path.join(PACKAGE_DIST, 'nodes/TaskdTrigger/TaskdTrigger.node.js')), 'build integrations/n8n first (npm run build there)')
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-n8n-'))
  let taskd: Served | undefined
  let n8n: N8n | undefined
  try {
    // taskd, as a user runs it; n8n is on 127.0.0.1, so private targets must be allowed (refused by default, as for every webhook URL).
    taskd = await serve(path.join(dir, 'taskd.db'), { TASKD_ALLOW_PRIVATE_TARGETS: 'true' })
    const setup = { authorization: `Bearer ${taskd.token}` }
    const api = (method: string, p: string, body?: unknown, expect?: number) => json(method, taskd!.url + p, { headers: setup, body, expect })
    const { board, lists } = await api('POST', '/v1/boards', { name: 'Launch', key_prefix: 'LCH' }, 201)
    const token = (await api('POST', '/v1/tokens', { name: 'n8n', permission: 'write' }, 201)).value as string

    n8n = await startN8n(path.join(dir, 'n8n'))
    const n8nUrl = n8n.url
    const owner = await fetch(`${n8nUrl}/rest/owner/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'owner@example.test', firstName: 'Test', lastName: 'Owner', password: 'Taskd-e2e-Passw0rd' }),
    })
    assert.equal(owner.status, 200, await owner.clone().text())
    const cookie = owner.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ')
    const rest = (method: string, p: string, body?: unknown) => json(method, `${n8nUrl}/rest${p}`, { headers: { cookie }, body })
    const scopes = (await rest('GET', '/api-keys/scopes')).data as string[]
    const apiKey = (await rest('POST', '/api-keys', { label: 'taskd e2e', scopes, expiresAt: null })).data.rawApiKey as string
    const pub = (method: string, p: string, body?: unknown) => json(method, `${n8nUrl}/api/v1${p}`, { headers: { 'X-N8N-API-KEY': apiKey }, body })

    // The credential, and n8n's own credential test (GET /v1/users/me): good with the token, an error without it.
    const credData = { baseUrl: taskd.url, accessToken: token }
    const credential = await pub('POST', '/credentials', { name: 'taskd', type: 'taskdApi', data: credData })
    const tested = await rest('POST', '/credentials/test', { credentials: { id: credential.id, name: 'taskd', type: 'taskdApi', data: credData } })
    assert.equal(tested.data.status, 'OK', JSON.stringify(tested))
    const refused = await rest('POST', '/credentials/test', {
      credentials: { id: credential.id, name: 'taskd', type: 'taskdApi', data: { ...credData, accessToken: 'tt_' + 'x'.repeat(40) } },
    })
    assert.equal(refused.data.status, 'Error', JSON.stringify(refused))
    const creds = { taskdApi: { id: credential.id, name: 'taskd' } }

    // The trigger workflow: activation registers the subscription.
    const triggerName = 'Cards to Slack'
    const workflow = await pub('POST', '/workflows', {
      name: triggerName,
      nodes: [
        {
          id: randomUUID(),
          name: 'taskd Trigger',
          type: 'CUSTOM.taskdTrigger',
          typeVersion: 1,
          position: [0, 0],
          webhookId: randomUUID(),
          parameters: TRIGGER_PARAMETERS(board.id),
          credentials: creds,
        },
      ],
      connections: {},
      settings: { executionOrder: 'v1' },
    })
    await pub('POST', `/workflows/${workflow.id}/activate`)
    type Sub = { id: string; name: string; url: string; events: string[]; boards: string[]; active: boolean }
    const sub = await until('the subscription n8n registers', async () =>
      ((await api('GET', '/v1/webhooks')).items as Sub[]).find((s) => s.name === `n8n: ${triggerName}`),
    )
    assert.deepEqual([sub.events, sub.boards, sub.active], [['card.created'], [board.id], true])
    assert.ok(sub.url.startsWith(`${n8nUrl}/webhook`), sub.url)

    // A card made in taskd arrives as an execution with the card's data.
    const executions = async () => (await pub('GET', `/executions?workflowId=${workflow.id}&includeData=true`)).data as any[]
    const card = (await api('POST', '/v1/cards', { board: board.id, title: 'Ship the n8n node' }, 201)).card
    const first = await until('the first execution', async () => {
      const list = await executions()
      return list.length === 1 && list[0].finished ? list : undefined
    })
    const item = first[0].data.resultData.runData['taskd Trigger'][0].data.main[0][0].json
    assert.equal(item.event, 'card.created')
    assert.equal(item.data.id, card.id)
    assert.equal(item.data.title, 'Ship the n8n node')

    // A delivery with a wrong signature is answered 401 and starts nothing; a good one after it is the second execution.
    const body = JSON.stringify({ ...item, data: { ...item.data, title: 'forged' } })
    const wrongSignature = 'sha256=' + createHmac('sha256', 'not-the-secret').update(body).digest('hex')
    for (const headers of [{ 'X-Service-Signature': wrongSignature }, {}] as Record<string, string>[]) {
      const forged: Response = await fetch(sub.url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body })
      assert.equal(forged.status, 401, await forged.text())
    }
    await api('POST', '/v1/cards', { board: board.id, title: 'Second card' }, 201)
    const second = await until('the second execution', async () => {
      const list = await executions()
      return list.length >= 2 && list.every((e) => e.finished) ? list : undefined
    })
    assert.equal(second.length, 2, 'the forged deliveries ran nothing')
    const titles = second.map((e) => e.data.resultData.runData['taskd Trigger'][0].data.main[0][0].json.data.title).sort()
    assert.deepEqual(titles, ['Second card', 'Ship the n8n node'])

    await runActions({ api, pub, n8nUrl, creds, board, lists, card, token })

    // Deactivation removes the subscription (n8n runs the node's delete hook just after it answers).
    await pub('POST', `/workflows/${workflow.id}/deactivate`)
    await until('the subscription to be removed', async () => {
      const left = ((await api('GET', '/v1/webhooks')).items as Sub[]).filter((s) => s.name.startsWith('n8n: '))
      return left.length === 0 ? true : undefined
    })
  } catch (err) {
    // What n8n printed is what explains a failure here.
    throw new Error(`${(err as Error).message}\n--- n8n (last lines) ---\n${n8n?.output().slice(-6000) ?? ''}`, { cause: err })
  } finally {
    await n8n?.stop()
    await taskd?.stop()
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

/** The trigger node's parameters: card.created on the board. */
function TRIGGER_PARAMETERS(board: string) {
  return { events: ['card.created'], boards: [board] }
}

interface ActionContext {
  api: (method: string, p: string, body?: unknown, expect?: number) => Promise<any>
  pub: (method: string, p: string, body?: unknown) => Promise<any>
  n8nUrl: string
  creds: object
  board: { id: string }
  lists: { id: string; category: string }[]
  card: { id: string }
  token: string
}

/**
 * Every operation of the action node, in one workflow behind an n8n Webhook node (so the test can run it through
 * n8n's own front door); each node takes the task made by the first by expression. Then taskd is asked what happened.
 */
async function runActions(c: ActionContext): Promise<void> {
  const me = (await c.api('GET', '/v1/users/me')).user
  const agent = (await c.api('POST', '/v1/users', { kind: 'agent', name: 'Scribe', agent: { owner: me.id, powers: ['local_access'] } }, 201)).user
  await c.api('POST', `/v1/boards/${c.board.id}/members`, { user: agent.id }, 201)
  const endpoint = (await c.api('POST', '/v1/webhooks/incoming', { name: 'from n8n', boards: [c.board.id] }, 201)).incoming_webhook
  const task = '={{ $("Create task").item.json.id }}'
  const steps: [string, Record<string, unknown>][] = [
    [
      'Create task',
      { resource: 'task', operation: 'create', boardId: c.board.id, title: 'Made by n8n', additionalFields: { list: c.lists[0].id, priority: 2 } },
    ],
    ['Update task', { resource: 'task', operation: 'update', taskId: task, updateFields: { title: 'Made and renamed by n8n', due_date: '2026-12-24' } }],
    ['Move task', { resource: 'task', operation: 'move', taskId: task, boardId: c.board.id, listId: c.lists[1].id }],
    ['Complete task', { resource: 'task', operation: 'complete', taskId: task, completed: true }],
    ['Get task', { resource: 'task', operation: 'get', taskId: task }],
    ['Search tasks', { resource: 'task', operation: 'search', filter: 'title ~ "renamed by n8n"', searchBoardId: c.board.id, returnAll: true }],
    ['Search tasks by text', { resource: 'task', operation: 'search', searchText: 'renam* n8n', searchBoardId: c.board.id, returnAll: true }],
    ['Add comment', { resource: 'comment', operation: 'add', taskId: task, body: 'Done by n8n' }],
    ['Create note', { resource: 'note', operation: 'create', noteTitle: 'n8n note', noteBody: 'Written by a workflow', noteFields: { board: c.board.id } }],
    ['Start timer', { resource: 'timer', operation: 'start', taskId: task, timerNote: 'n8n' }],
    ['Stop timer', { resource: 'timer', operation: 'stop' }],
    [
      'Kick off agent',
      {
        resource: 'agent',
        operation: 'kickOff',
        taskId: task,
        agentId: agent.id,
        kickoffOptions: { powers: ['local_access'], model: 'fast', effort: 'high', message: 'Proofread it' },
      },
    ],
    ['Trigger endpoint', { resource: 'workflow', operation: 'trigger', endpointId: endpoint.id, payload: '{"from": "n8n"}' }],
  ]
  const nodes: object[] = [
    {
      id: randomUUID(),
      name: 'Webhook',
      type: 'n8n-nodes-base.webhook',
      typeVersion: 2,
      position: [0, 0],
      webhookId: randomUUID(),
      parameters: { httpMethod: 'POST', path: 'taskd-actions', responseMode: 'lastNode', responseData: 'allEntries' },
    },
  ]
  const connections: Record<string, object> = {}
  let previous = 'Webhook'
  steps.forEach(([name, parameters], i) => {
    nodes.push({ id: randomUUID(), name, type: 'CUSTOM.taskd', typeVersion: 1, position: [(i + 1) * 220, 0], parameters, credentials: c.creds })
    connections[previous] = { main: [[{ node: name, type: 'main', index: 0 }]] }
    previous = name
  })
  const workflow = await c.pub('POST', '/workflows', { name: 'taskd actions', nodes, connections, settings: { executionOrder: 'v1' } })
  await c.pub('POST', `/workflows/${workflow.id}/activate`)
  try {
    // Activation registers the webhook shortly after it answers: until then n8n answers 404 and runs nothing.
    const res = await until('the actions webhook', async () => {
      const r = await fetch(`${c.n8nUrl}/webhook/taskd-actions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
      return r.status === 404 ? undefined : r
    })
    const text = await res.text()
    assert.equal(res.status, 200, text)
    const last = JSON.parse(text)
    assert.equal((Array.isArray(last) ? last[0] : last).accepted, true, text)

    const runs = (await c.pub('GET', `/executions?workflowId=${workflow.id}&includeData=true`)).data as any[]
    assert.equal(runs.length, 1)
    const out = (node: string) => runs[0].data.resultData.runData[node][0].data.main[0].map((i: { json: any }) => i.json)
    const made = out('Create task')[0]
    const rest = (await c.api('GET', `/v1/cards/${made.id}`)).card
    assert.equal(rest.title, 'Made and renamed by n8n')
    // Moved to the second list, then completed: completing moves a card to the board's first list of category completed.
    assert.equal(rest.list, c.lists.find((l) => l.category === 'completed')!.id)
    assert.equal(rest.completed, true)
    assert.equal(rest.priority, 2)
    assert.equal(rest.due_date, '2026-12-24')
    assert.equal(out('Get task')[0].id, made.id)
    assert.equal(out('Get task')[0].completed, true)
    assert.deepEqual(
      out('Search tasks').map((t: { id: string }) => t.id),
      [made.id],
    )
    assert.deepEqual(
      out('Search tasks by text').map((r: { type: string; id: string; snippet: string }) => [r.type, r.id, r.snippet]),
      [['card', made.id, 'Made and «renamed» by «n8n»']],
    )
    const comments = (await c.api('GET', `/v1/comments?card=${made.id}`)).items
    assert.deepEqual(
      comments.map((x: { body: string }) => x.body),
      ['Done by n8n'],
    )
    const notes = (await c.api('GET', `/v1/notes?filter=${encodeURIComponent('title = "n8n note"')}`)).items
    assert.equal(notes.length, 1)
    assert.equal(notes[0].board, c.board.id)
    const entries = (await c.api('GET', `/v1/time-entries?filter=${encodeURIComponent(`card = "${made.id}"`)}`)).items
    assert.equal(entries.length, 1)
    assert.notEqual(entries[0].ended_at, null, 'the timer was stopped')
    const kickoff = (await c.api('GET', `/v1/agent-kickoffs/${out('Kick off agent')[0].id}`)).kickoff
    assert.equal(kickoff.card, made.id)
    assert.equal(kickoff.agent.id, agent.id)
    assert.deepEqual(kickoff.powers, ['local_access'])
    assert.equal(kickoff.model, 'fast')
    const logs = (await c.api('GET', `/v1/webhooks/incoming/${endpoint.id}/logs`)).items
    assert.equal(logs.length, 1)
    assert.deepEqual(JSON.parse(logs[0].body ?? '{}'), { from: 'n8n' })

    // An API error fails the node with taskd's own message.
    const failing = await c.pub('POST', '/workflows', {
      name: 'taskd error',
      nodes: [
        {
          ...(nodes[0] as object),
          id: randomUUID(),
          webhookId: randomUUID(),
          parameters: { httpMethod: 'POST', path: 'taskd-error', responseMode: 'lastNode' },
        },
        {
          id: randomUUID(),
          name: 'Get task',
          type: 'CUSTOM.taskd',
          typeVersion: 1,
          position: [220, 0],
          parameters: { resource: 'task', operation: 'get', taskId: 'nosuchtask' },
          credentials: c.creds,
        },
      ],
      connections: { Webhook: { main: [[{ node: 'Get task', type: 'main', index: 0 }]] } },
      settings: { executionOrder: 'v1' },
    })
    await c.pub('POST', `/workflows/${failing.id}/activate`)
    const failed = await until('the error webhook', async () => {
      const r = await fetch(`${c.n8nUrl}/webhook/taskd-error`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
      return r.status === 404 ? undefined : r
    })
    const failedText = await failed.text()
    assert.equal(failed.status, 500, failedText)
    const failedRun = (await c.pub('GET', `/executions?workflowId=${failing.id}&includeData=true`)).data[0]
    const message = (await c.api('GET', '/v1/cards/nosuchtask', undefined, 404)).error.message as string
    assert.equal(failedRun.data.resultData.error.message, message, JSON.stringify(failedRun.data.resultData.error))
    await c.pub('POST', `/workflows/${failing.id}/deactivate`)
  } finally {
    await c.pub('POST', `/workflows/${workflow.id}/deactivate`)
  }
}

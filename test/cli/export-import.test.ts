// taskd export and taskd import as child processes on the test dialect (SQLite, or PostgreSQL in npm test's second run):
// a workspace with every kind of record and a file goes out and into an empty database exactly, refusals change nothing.
import assert from 'node:assert/strict'
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'
import { SCHEMA_VERSION } from '../../src/db/migrate.js'
import { AutomationRunner } from '../../src/resources/automations/runner.js'
import { seededApp } from '../helpers/app.js'
import { runCli } from '../helpers/cli.js'
import { freshDatabase, type TestDatabase } from '../helpers/database.js'
import { serve } from '../helpers/serve.js'

const run = (args: string[]) => runCli(args)
const target = (d: { databaseUrl?: string; db: string }) => d.databaseUrl ?? d.db
const readJson = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown[]> & { exported_at?: string }
const withoutTime = ({ exported_at, ...rest }: Record<string, unknown>) => (assert.match(String(exported_at), /^\d{4}-/), rest)

/** Fills a seeded workspace with a record of each exported kind, and a card with a file from a multipart request. */
async function fillWorkspace(s: Awaited<ReturnType<typeof seededApp>>) {
  const tok = s.tokens.owner.write
  const post = async (url: string, body: Record<string, unknown>) => {
    const r = await s.t.req('POST', url, { token: tok, body })
    assert.ok(r.status === 201 || r.status === 200, `${url}: ${r.text}`)
    return r.body
  }
  const tag = (await post('/v1/tags', { board: s.board.id, name: 'bug', color: '#ff0000' })).tag
  // Planning: a folder in a folder holding the board, a team, a status with a list bound to it, a milestone.
  const outer = (await post('/v1/folders', { name: 'Outer' })).folder
  const inner = (await post('/v1/folders', { name: 'Inner', parent: outer.id })).folder
  assert.equal((await s.t.req('PATCH', `/v1/boards/${s.board.id}`, { token: tok, body: { folder: inner.id } })).status, 200)
  await post('/v1/groups', { name: 'Core', kind: 'team', members: [s.member.id, s.admin.id] })
  const review = (await post('/v1/board-statuses', { board: s.board.id, name: 'In review', category: 'started' })).board_status
  await post('/v1/lists', { board: s.board.id, name: 'Review', status: review.id })
  const milestone = (await post('/v1/milestones', { board: s.board.id, name: 'Beta', due_date: '2026-12-15' })).milestone
  const card = (
    await post('/v1/cards', {
      board: s.board.id,
      title: 'Ship it',
      description: 'Ünïcødé ✓',
      priority: 3,
      tags: [tag.id],
      assignees: [s.member.id],
      watchers: [s.admin.id],
      due_date: '2026-12-01',
      milestone: milestone.id,
    })
  ).card
  await post('/v1/cards', { board: s.board.id, title: 'Done one', completed: true, archived: true })
  // Custom fields: definitions with options, and values on a card (one row per multi_select option).
  await post('/v1/xattr', { board: s.board.id, name: 'Estimate', type: 'number' })
  await post('/v1/xattr', { board: s.board.id, name: 'Labels', type: 'multi_select', options: ['Bug', { name: 'Ops', color: '#00ff00' }] })
  await post('/v1/xattr', { board: s.board.id, name: 'Double', type: 'formula', formula: 'estimate * 2' })
  const valued = await s.t.req('PATCH', `/v1/cards/${card.id}`, { token: tok, body: { xattr: { estimate: 3, labels: ['Bug', 'Ops'] } } })
  assert.deepEqual(valued.body.card?.xattr, { estimate: 3, labels: valued.body.card?.xattr?.labels, double: 6 }, valued.text)
  // Templates: a board template (a snapshot with cards) and a card template.
  await post('/v1/templates', { name: 'Sprint', board: s.board.id, include_cards: true })
  await post('/v1/card-templates', { board: s.board.id, name: 'Bug', title: 'Bug:', tags: [tag.id], checklist: ['Reproduce'], xattr: { estimate: 1 } })
  // Saved filters: one of the board (private), one shared with the workspace.
  await post('/v1/saved-filters', { name: 'Urgent', board: s.board.id, filter: 'priority >= 3', sort: '-xattr.estimate', expand: 'tags' })
  await post('/v1/saved-filters', { name: 'Everything', shared: true })
  await post('/v1/comments', { card: card.id, body: `Thanks @${s.member.email.split('@')[0]}` })
  const checklist = (await post('/v1/checklists', { card: card.id, title: 'Steps', items: ['one', 'two'] })).checklist
  const item = checklist.items[0]
  assert.equal((await s.t.req('PATCH', `/v1/checklists/${checklist.id}/items/${item.id}`, { token: tok, body: { completed: true } })).status, 200)
  await post('/v1/time-entries', { card: card.id, started_at: '2026-11-20T09:00:00.000Z', duration_seconds: 5400, billable: false, note: 'pairing' })
  const parent = (await post('/v1/note-folders', { name: 'Top', board: s.board.id })).note_folder
  const child = (await post('/v1/note-folders', { name: 'Inner', parent: parent.id })).note_folder
  const note = (await post('/v1/notes', { title: 'Plan', body: '# Plan', folder: child.id, card: card.id })).note
  await post('/v1/note-publications', { note: note.id })
  // Planning: a parent made after its child (so the child comes first in the export), a dependency, links to a note and a URL.
  const epic = (await post('/v1/cards', { board: s.board.id, title: 'Epic' })).card
  assert.equal((await s.t.req('PATCH', `/v1/cards/${card.id}`, { token: tok, body: { parent: epic.id } })).status, 200)
  await post('/v1/dependencies', { blocker: epic.id, blocked: card.id })
  await post('/v1/entity-links', { kind: 'relates_to', source: { type: 'card', id: card.id }, target: { type: 'note', id: note.id } })
  await post('/v1/entity-links', {
    kind: 'relates_to',
    source: { type: 'card', id: card.id },
    target: { type: 'url', url: 'https://example.com/spec', title: 'Spec' },
  })
  // Git: a connection (its secret stays out), a repository on the board, a pushed commit linking the card, a pipeline.
  const made = (await post('/v1/git/connections', { provider: 'github', name: 'GitHub' })) as {
    git_connection: { id: string; hook_url: string }
    secret: string
  }
  await post('/v1/git/repositories', { connection: made.git_connection.id, full_name: 'acme/api', board: s.board.id })
  const push = JSON.stringify({
    ref: 'refs/heads/main',
    after: 'c'.repeat(40),
    repository: { full_name: 'acme/api', html_url: 'https://github.com/acme/api' },
    commits: [{ id: 'c'.repeat(40), message: `Fix ${card.key}`, url: 'https://github.com/acme/api/commit/c', author: { username: 'dev' } }],
  })
  const hooked = await fetch(made.git_connection.hook_url.replace('http://taskd.test', s.t.url), {
    method: 'POST',
    body: push,
    headers: {
      'content-type': 'application/json',
      'X-GitHub-Event': 'push',
      'X-Hub-Signature-256': `sha256=${crypto.createHmac('sha256', made.secret).update(push).digest('hex')}`,
    },
  })
  assert.equal(hooked.status, 202)
  await post('/v1/pipelines', { repository: 'acme/api', name: 'CI', commit: 'c'.repeat(40), status: 'success' })
  // A file: an incoming multipart request whose automation makes a card with it.
  const ep = (await s.t.req('POST', '/v1/webhooks/incoming', { token: s.tokens.admin.write, body: { name: 'Intake', accept_files: true } })).body
    .incoming_webhook
  await post('/v1/automations', {
    name: 'intake',
    board: s.board.id,
    trigger: { type: 'incoming_webhook', endpoint: ep.id },
    steps: [{ type: 'create_card', title: 'Scan' }],
  })
  const form = new FormData()
  form.append('scan', new Blob([Buffer.from([0, 1, 2, 255, 10])], { type: 'application/octet-stream' }), 'scan.bin')
  assert.equal((await fetch(s.t.url + new URL(ep.url).pathname, { method: 'POST', body: form })).status, 202)
  const runner = new AutomationRunner(s.t.deps, { log: () => {} })
  await runner.runOnce()
  await runner.stop(1000)
}

test('taskd export, import into an empty database, export again: identical apart from the export time; refusals change nothing', async () => {
  const s = await seededApp()
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-export-'))
  const databases: TestDatabase[] = []
  try {
    await fillWorkspace(s)
    const source = { db: s.t.dbFile, databaseUrl: s.t.deps.config.databaseUrl }
    const first = path.join(dir, 'first.json')
    // Over a file others may read: the export replaces it with an owner-only one, and leaves nothing else behind.
    fs.writeFileSync(first, 'old')
    fs.chmodSync(first, 0o644)
    const exported = await run(['export', '--db', target(source), '--out', first])
    assert.equal(exported.status, 0, exported.stderr)
    assert.match(exported.stdout, /^exported \d+ records \(1 files\) to /)
    assert.equal(fs.statSync(first).mode & 0o777, 0o600)
    assert.deepEqual(fs.readdirSync(dir), ['first.json'])
    assert.match(exported.stderr, /export: 100%/)
    const data = readJson(first)
    for (const table of [
      'users',
      'boards',
      'key_prefixes',
      'cards',
      'card_tags',
      'comments',
      'comment_mentions',
      'checklist_items',
      'time_entries',
      'notes',
      'card_dependencies',
      'entity_links',
      'templates',
      'card_templates',
      'saved_filters',
      'git_connections',
      'git_repositories',
      'git_resources',
      'git_resource_cards',
      'pipelines',
      'pipeline_cards',
    ])
      assert.ok(data[table].length > 0, `${table} exported`)
    assert.equal(data.git_connection_secrets, undefined, 'hook secrets stay out')
    assert.equal(data.note_folders.length, 2)
    assert.deepEqual(
      [data.folders.length, data.user_groups.length, data.user_group_members.length, data.board_statuses.length, data.milestones.length],
      [2, 1, 2, 4, 1],
    )
    assert.ok(data.cards.some((c: any) => c.milestone_id !== null) && data.lists.some((l: any) => l.status_id !== null))
    assert.equal(data.note_publications.length, 1)
    // The attached file and its one chunk (the incoming request's own copy stays out with the request).
    const bytes = Buffer.from([0, 1, 2, 255, 10])
    assert.deepEqual(
      data.files.map((f: any) => [f.name, f.content_type, f.size, f.sha256, f.request_id, f.card_id !== null]),
      [['scan.bin', 'application/octet-stream', 5, crypto.createHash('sha256').update(bytes).digest('hex'), null, true]],
    )
    assert.deepEqual(
      data.file_chunks.map((c: any) => [c.file_id, c.seq, Buffer.from(c.data, 'base64').toString('hex')]),
      [[(data.files as { id: string }[])[0].id, 0, '000102ff0a']],
    )
    assert.ok(!('tokens' in data) && !('webhooks' in data) && !('incoming_endpoints' in data))

    // Into the source (not empty): refused with the reason.
    const refused = await run(['import', '--db', target(source), first])
    assert.equal(refused.status, 1)
    assert.match(refused.stderr, /^taskd: the database is not empty \(users: 4, .*boards: 1, .*\); import into a new one/)

    const empty = await freshDatabase(fs.mkdtempSync(path.join(dir, 'b-')))
    databases.push(empty)
    // A broken file (a comment on a card that is not there) fails as a whole: nothing of it stays.
    const broken = path.join(dir, 'broken.json')
    fs.writeFileSync(broken, JSON.stringify({ ...data, comments: [...data.comments, { ...(data.comments[0] as object), id: 'zzzz', card_id: 'missing' }] }))
    const failed = await run(['import', '--db', target(empty), broken])
    assert.equal(failed.status, 1, failed.stdout)
    const still = path.join(dir, 'still-empty.json')
    assert.equal((await run(['export', '--db', target(empty), '--out', still])).status, 0)
    assert.ok(
      Object.entries(withoutTime(readJson(still))).every(([t, rows]) => t === 'schema_version' || t === 'workspace' || (rows as unknown[]).length === 0),
    )

    // The inner folder listed before its parent, whatever order their random ids give: import puts parents first.
    const childFirst = path.join(dir, 'child-first.json')
    const folders = data.note_folders as { parent_id: string | null }[]
    assert.ok(folders.some((f) => f.parent_id !== null))
    fs.writeFileSync(
      childFirst,
      JSON.stringify({
        ...data,
        note_folders: [...folders].sort((a, b) => Number(a.parent_id === null) - Number(b.parent_id === null)),
        folders: [...(data.folders as { parent_id: string | null }[])].sort((a, b) => Number(a.parent_id === null) - Number(b.parent_id === null)),
      }),
    )
    const imported = await run(['import', '--db', target(empty), childFirst])
    assert.equal(imported.status, 0, imported.stderr)
    assert.match(imported.stderr, /import: 100%/)
    const second = path.join(dir, 'second.json')
    assert.equal((await run(['export', '--db', target(empty), '--out', second])).status, 0)
    // The audit log is carried and added to: the export of the still empty database, then the import.
    const { audit_log: log, ...rest } = withoutTime(readJson(second)) as Record<string, unknown[]>
    const { audit_log: sourceLog, ...sourceRest } = withoutTime(data) as Record<string, unknown[]>
    assert.deepEqual(rest, sourceRest)
    assert.ok(sourceLog.length > 0, 'the source has a log')
    assert.deepEqual(log.slice(0, sourceLog.length), sourceLog)
    assert.deepEqual(
      log.slice(sourceLog.length).map((e: any) => [e.action, e.actor_type]),
      [
        ['workspace.exported', 'cli'],
        ['workspace.imported', 'cli'],
      ],
    )

    // The imported workspace works: a new card continues the board's keys, and its key prefix stays reserved.
    const admin = (data.users as { email: string; role: string }[]).find((u) => u.role === 'admin')!
    const token = await run(['token', 'create', '--db', target(empty), '--user', admin.email, '--name', 'after', '--permission', 'write'])
    assert.equal(token.status, 0, token.stderr)
    const server = await serve(empty.db, empty.env)
    try {
      const headers = { authorization: `Bearer ${token.stdout.trim()}`, 'content-type': 'application/json' }
      const made = await fetch(`${server.url}/v1/cards`, { method: 'POST', headers, body: JSON.stringify({ board: s.board.id, title: 'After import' }) })
      assert.equal(made.status, 201)
      assert.equal((await made.json()).card.key, `LCH-${data.cards.length + 1}`)
      const clash = await fetch(`${server.url}/v1/boards`, { method: 'POST', headers, body: JSON.stringify({ name: 'Other', key_prefix: 'LCH' }) })
      assert.equal(clash.status, 422)
      assert.equal((await clash.json()).error.details[0].path, 'key_prefix')
      // The search index, which no export carries, was built again as the rows went in.
      const found = async (text: string) => {
        const r = await fetch(`${server.url}/v1/search?q=${encodeURIComponent(text)}`, { headers })
        assert.equal(r.status, 200)
        return (await r.json()).items.map((i: { type: string; title: string }) => `${i.type} ${i.title}`)
      }
      assert.deepEqual([await found('ÜNÏCØDÉ'), await found('thanks'), await found('plan')], [['card Ship it'], ['comment Ship it'], ['note Plan']])
    } finally {
      await server.stop()
    }
  } finally {
    await s.t.close()
    for (const d of databases) await d.drop()
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

test('taskd import refuses what is not a taskd export, with the reason', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-import-'))
  const d = await freshDatabase(dir)
  try {
    const notJson = path.join(dir, 'x.json')
    fs.writeFileSync(notJson, 'hello')
    const a = await run(['import', '--db', target(d), notJson])
    assert.equal(a.status, 1)
    assert.match(a.stderr, /^taskd: cannot read .*x\.json: .*JSON/)
    fs.writeFileSync(notJson, JSON.stringify({ exported_at: 'x', schema_version: SCHEMA_VERSION, workspace: [] }))
    const b = await run(['import', '--db', target(d), notJson])
    assert.equal(b.status, 1)
    assert.match(b.stderr, /^taskd: .*x\.json is not a taskd export: users: /)
    fs.writeFileSync(notJson, JSON.stringify({ exported_at: 'x', schema_version: 999 }))
    assert.match((await run(['import', '--db', target(d), notJson])).stderr, /schema version 999, newer than this taskd's/)

    // A real export of the empty database, altered: an older schema version, or files[] entries of the wrong shape.
    const empty = path.join(dir, 'empty.json')
    assert.equal((await run(['export', '--db', target(d), '--out', empty])).status, 0)
    const base = readJson(empty)
    const file = {
      id: 'f1',
      card_id: null,
      note_id: null,
      request_id: null,
      name: 'a.txt',
      content_type: 'text/plain',
      size: 2,
      sha256: crypto.createHash('sha256').update('hi').digest('hex'),
      complete: 1,
      created_by: null,
      created_at: '2026-01-01T00:00:00.000Z',
    }
    const chunk = { file_id: 'f1', seq: 0, data: 'aGk=' }
    const altered: [Record<string, unknown>, RegExp][] = [
      [
        { schema_version: SCHEMA_VERSION - 1, files: [file], file_chunks: [chunk] },
        new RegExp(`^taskd: .*schema version ${SCHEMA_VERSION - 1}, older than this taskd's ${SCHEMA_VERSION}: import it with the taskd that wrote it`),
      ],
      [{ files: [file], file_chunks: [{ ...chunk, data: 42 }] }, /^taskd: .*x\.json is not a taskd export: file_chunks\.0\.data: /],
      [{ files: [file], file_chunks: [{ ...chunk, data: 'not base64!' }] }, /^taskd: .*x\.json is not a taskd export: file_chunks\.0\.data: /],
      [{ files: [{ ...file, name: 7 }] }, /^taskd: .*x\.json is not a taskd export: files\.0\.name: /],
      [{ files: [{ ...file, content_type: null }] }, /^taskd: .*x\.json is not a taskd export: files\.0\.content_type: /],
      [{ files: [{ ...file, size: '2' }] }, /^taskd: .*x\.json is not a taskd export: files\.0\.size: /],
      [{ files: ['aGk='] }, /^taskd: .*x\.json is not a taskd export: files\.0: /],
      // Bytes that do not add up to the file's size and sha256: refused before anything is written.
      [
        { files: [file], file_chunks: [{ ...chunk, data: 'aGo=' }] },
        /^taskd: .*x\.json holds files whose bytes do not match their size and sha256, so nothing was imported: a\.txt\n/,
      ],
      [{ files: [file], file_chunks: [] }, /do not match their size and sha256, so nothing was imported: a\.txt\n/],
    ]
    for (const [change, reason] of altered) {
      fs.writeFileSync(notJson, JSON.stringify({ ...base, ...change }))
      const refused = await run(['import', '--db', target(d), notJson])
      assert.equal(refused.status, 1, JSON.stringify(change))
      assert.match(refused.stderr, reason)
      assert.equal(refused.stderr.trim().split('\n').length, 1, 'one line')
    }
    // Nothing was written: the database exports as empty as before (its log holds the first export only).
    const after = path.join(dir, 'after.json')
    assert.equal((await run(['export', '--db', target(d), '--out', after])).status, 0)
    const { audit_log: log, ...rest } = withoutTime(readJson(after)) as Record<string, unknown[]>
    assert.deepEqual({ ...rest, audit_log: [] }, withoutTime(base))
    assert.deepEqual(
      log.map((e: any) => e.action),
      ['workspace.exported'],
    )
  } finally {
    await d.drop()
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

// What a verified hook brings in, in one transaction with its events: the repository (made on its first hook), the
// branch, commits or pull request that mention card keys (stored once they link a card, and kept up to date after),
// their new links (`git_resource.linked`), a linked pull request's or branch's change (`git_resource.updated`), the
// repository's rules when a pull request opens or merges, and CI runs through the pipelines family.
import type { Actor } from '../../access/roles.js'
import { isoAt } from '../../clock.js'
import type { Tx } from '../../db/database.js'
import { rowsByIds } from '../../db/sql.js'
import type { GitConnectionsTable, GitRepositoriesTable, GitResourcesTable } from '../../db/types.js'
import type { Deps } from '../../deps.js'
import { emitEvents, type NewEvent } from '../../events/emit.js'
import { newId } from '../../ids.js'
import { getBoards } from '../boards/published.js'
import { taskEventRefsOf } from '../cards/present.js'
import { reportPipelineIn } from '../pipelines/service.js'
import { firstLine, type HookEvent, type RepositoryRef } from './hooks.js'
import { mentionsIn } from './mentions.js'
import { gitActor, runRules } from './rules.js'
import {
  cardsMentioned,
  cardsOfResources,
  insertRepository,
  insertResource,
  linkCards,
  repositoryByName,
  resourceAt,
  updateRepositoryRow,
  updateResourceRow,
} from './store.js'

/** The repository a hook comes from: found by its full name (its web address kept up to date), or made now. */
async function repositoryOf(deps: Deps, tx: Tx, connection: GitConnectionsTable, ref: RepositoryRef): Promise<GitRepositoriesTable> {
  const found = await repositoryByName(tx.q, connection.id, ref.fullName)
  const at = isoAt(deps.clock.now())
  if (found) {
    if (found.url !== ref.url || found.full_name !== ref.fullName) {
      await updateRepositoryRow(tx.q, found.id, { url: ref.url, full_name: ref.fullName, updated_at: at })
      return { ...found, url: ref.url, full_name: ref.fullName, updated_at: at }
    }
    return found
  }
  const row: GitRepositoriesTable = {
    id: newId(),
    connection_id: connection.id,
    full_name: ref.fullName,
    url: ref.url,
    board_id: null,
    rules: '[]',
    created_at: at,
    updated_at: at,
  }
  await insertRepository(tx.q, row)
  return row
}

const repositoryRef = (r: GitRepositoriesTable) => ({ id: r.id, name: r.full_name })
const resourceData = (r: GitResourcesTable, repository: GitRepositoriesTable) => ({
  id: r.id,
  kind: r.kind,
  ref: r.ref,
  title: r.title,
  url: r.url,
  state: r.state,
  author: r.author,
  repository: repositoryRef(repository),
})

interface Seen {
  kind: GitResourcesTable['kind']
  ref: string
  title: string
  url: string
  state: string
  author: string | null
  /** The text whose key mentions link cards. */
  mentions: (string | null)[]
}

/** A resource brought in, with what the hook changed: its cards, those newly linked, and its changed fields. */
interface Recorded {
  row: GitResourcesTable
  cards: string[]
  /** Whether it was stored now, or its state changed: a rule runs once per change, not again for a redelivered hook. */
  turned: boolean
}

/**
 * Stores what a hook says of one branch, commit or pull request, once it links a card (one it mentions: only of the
 * repository's board when it has one), and brings a stored one up to date; links the cards it newly mentions, each with
 * `git_resource.linked`, and announces a change of state or title of a linked one (`git_resource.updated`, per board).
 */
async function record(deps: Deps, tx: Tx, actor: Actor, repository: GitRepositoriesTable, seen: Seen): Promise<Recorded | undefined> {
  const { q } = tx
  const at = isoAt(deps.clock.now())
  const mentioned = await cardsMentioned(q, mentionsIn(...seen.mentions), repository.board_id)
  const existing = await resourceAt(q, repository.id, seen.kind, seen.ref)
  if (!existing && mentioned.length === 0) return undefined
  let row: GitResourcesTable
  const changes: string[] = []
  if (!existing) {
    row = {
      id: newId(),
      repository_id: repository.id,
      kind: seen.kind,
      ref: seen.ref,
      title: seen.title,
      url: seen.url,
      state: seen.state,
      author: seen.author,
      created_at: at,
      updated_at: at,
    }
    await insertResource(q, row)
  } else {
    if (existing.state !== seen.state) changes.push('state')
    if (existing.title !== seen.title) changes.push('title')
    const set = { title: seen.title, url: seen.url, state: seen.state, author: seen.author ?? existing.author }
    row = existing
    if (Object.entries(set).some(([k, v]) => existing[k as keyof typeof set] !== v)) {
      row = { ...existing, ...set, updated_at: at }
      await updateResourceRow(q, existing.id, { ...set, updated_at: at })
    }
  }
  const fresh = await linkCards(
    q,
    row.id,
    mentioned.map((c) => c.id),
    at,
  )
  const events: NewEvent[] = []
  if (fresh.length) {
    const linked = new Map((await rowsByIds(q, 'cards', fresh)).map((r) => [r.id, r]))
    const refs = await taskEventRefsOf(
      q,
      deps.config,
      fresh.map((id) => linked.get(id)!),
    )
    for (const { card, board } of refs)
      events.push({ name: 'git_resource.linked', boardId: board.id, data: { ...resourceData(row, repository), card, board }, actor })
  }
  const cards = (await cardsOfResources(q, [row.id])).get(row.id) ?? []
  if (changes.length && cards.length) {
    const boards = new Map<string, string[]>()
    const byCard = await rowsByIds(q, 'cards', cards)
    for (const c of byCard) boards.set(c.board_id, [...(boards.get(c.board_id) ?? []), c.id])
    const names = new Map((await getBoards(q, [...boards.keys()])).map((b) => [b.id, b.name]))
    for (const [board, ids] of boards)
      events.push({
        name: 'git_resource.updated',
        boardId: board,
        data: {
          ...resourceData(row, repository),
          changes,
          cards: cards.filter((id) => ids.includes(id)),
          board: { id: board, name: names.get(board) ?? null },
        },
        actor,
      })
  }
  if (events.length) await emitEvents(deps, tx, events)
  return { row, cards, turned: !existing || changes.includes('state') }
}

/**
 * Applies a verified hook's event. Returns whether it was one taskd acts on (push, pull or merge request, CI run, the
 * ping GitHub sends when a hook is made); another event changes nothing.
 */
export async function ingestHook(deps: Deps, connection: GitConnectionsTable, event: HookEvent): Promise<boolean> {
  if (event.type === 'ping') return true
  if (event.type === 'ignored') return false
  await deps.db.tx(async (tx) => {
    const repository = await repositoryOf(deps, tx, connection, event.repository)
    const actor = gitActor(connection, repository)
    if (event.type === 'push') {
      if (event.branch !== null && event.branchUrl !== null)
        await record(deps, tx, actor, repository, {
          kind: 'branch',
          ref: event.branch,
          title: event.branch,
          url: event.branchUrl,
          state: event.deleted ? 'deleted' : 'active',
          author: event.pusher,
          mentions: [event.branch],
        })
      if (!event.deleted)
        for (const c of event.commits)
          await record(deps, tx, actor, repository, {
            kind: 'commit',
            ref: c.sha.toLowerCase(),
            title: firstLine(c.message),
            url: c.url,
            state: 'pushed',
            author: c.author,
            mentions: [c.message],
          })
    } else if (event.type === 'pull_request') {
      const recorded = await record(deps, tx, actor, repository, {
        kind: 'pull_request',
        ref: event.number,
        title: event.title.slice(0, 1000),
        url: event.url,
        state: event.state,
        author: event.author,
        mentions: [event.title, event.body, event.branch],
      })
      const trigger =
        event.action === 'opened' || event.action === 'reopened' ? 'pull_request.opened' : event.action === 'merged' ? 'pull_request.merged' : undefined
      if (recorded?.turned && trigger) await runRules(deps, tx, repository, trigger, recorded.cards)
    } else {
      const run = event.run
      // Times the hook does not carry stay undefined: kept, or set by the status (see reportPipelineIn).
      await reportPipelineIn(deps, tx, actor, repository, { ...run, commit: run.commit?.toLowerCase() ?? null }, null)
    }
  })
  return true
}

// Pipelines: CI runs of a git repository. A code host's CI hook reports them (git/ingest.ts calls reportPipelineIn as
// the connection); any other CI reports them with POST /v1/pipelines and PATCH, with a write token of someone who sees
// the repository (owners and admins, or members of its board). A run is linked to the cards its branch or head commit
// mention (directly, or through the branch and commit resources that link them); turning `failure` runs the
// repository's `pipeline.failed` rules. Seen like git resources: through one of its cards or its repository's board.
import { type Actor, creatorId, isAdmin } from '../../access/roles.js'
import { isoAt } from '../../clock.js'
import type { Q, Tx } from '../../db/database.js'
import type { GitRepositoriesTable, PipelinesTable } from '../../db/types.js'
import type { Deps } from '../../deps.js'
import { emitEvents, type NewEvent } from '../../events/emit.js'
import { conflict, forbidden, invalidField, notFound } from '../../errors.js'
import { newId } from '../../ids.js'
import { listPage, parseExpand, type ListParams } from '../../query/list-page.js'
import { getBoards } from '../boards/published.js'
import { visibleCard } from '../cards/service.js'
import { mentionsIn } from '../git/mentions.js'
import { cardBoardsSeenBy } from '../git/present.js'
import { boardsOfCards, cardsMentioned, cardsOfRefs, getRepository, repositoriesNamed } from '../git/published.js'
import { runRules } from '../git/rules.js'
import { expandRepository, visibleRepository } from '../git/service.js'
import { pipelineViews } from './present.js'
import { PIPELINE_LIST } from './query.js'
import { type CreatePipelineInput, FINAL_STATUSES, type PipelineStatus, type PipelineView, type UpdatePipelineInput } from './schema.js'
import {
  cardsOfPipelines,
  deletePipelineRow,
  getPipeline,
  insertPipeline,
  linkPipelineCards,
  pipelineAt,
  updatePipelineRow,
  visiblePipeline,
  visiblePipelinesQuery,
} from './store.js'

/** A run as reported: every field's new value (started_at and finished_at undefined: keep, or set by the status). */
export interface PipelineReport {
  /** The record id a new run gets (else a new one). */
  id?: string
  provider_id: string
  name: string
  branch: string | null
  commit: string | null
  /** The head commit's message, when the report has it: its mentions link the run too. */
  commit_message: string | null
  status: PipelineStatus
  url: string | null
  started_at?: string | null
  finished_at?: string | null
}

const normalTime = (v: string | null | undefined): string | null | undefined => (v == null ? v : new Date(v).toISOString())

/** The run's cards: those its branch and head commit message mention, and those its branch and commit resources link (on the repository's board only, when it has one). */
async function cardsOfRun(q: Q, repository: GitRepositoriesTable, report: PipelineReport): Promise<string[]> {
  const mentioned = (await cardsMentioned(q, mentionsIn(report.branch, report.commit_message), repository.board_id)).map((c) => c.id)
  const viaRefs = await cardsOfRefs(q, repository.id, report.branch, report.commit)
  const boards = repository.board_id === null ? undefined : await boardsOfCards(q, viaRefs)
  return [...new Set([...mentioned, ...viaRefs.filter((id) => !boards || boards.get(id) === repository.board_id)])]
}

/** pipeline.created or pipeline.updated, to each board of the run's cards, or workspace-wide when it has none. */
async function announce(
  deps: Deps,
  tx: Tx,
  actor: Actor,
  repository: GitRepositoriesTable,
  row: PipelinesTable,
  previous: PipelineStatus | null,
  created: boolean,
) {
  const links = await cardsOfPipelines(tx.q, [row.id])
  const byBoard = new Map<string, string[]>()
  for (const l of links) byBoard.set(l.board_id, [...(byBoard.get(l.board_id) ?? []), l.card_id])
  const names = new Map((await getBoards(tx.q, [...byBoard.keys()])).map((b) => [b.id, b.name]))
  const base = {
    id: row.id,
    name: row.name,
    status: row.status,
    previous_status: previous,
    branch: row.branch,
    commit: row.commit_sha,
    url: row.url,
    repository: { id: repository.id, name: repository.full_name },
  }
  const name = created ? ('pipeline.created' as const) : ('pipeline.updated' as const)
  const events: NewEvent[] =
    byBoard.size === 0
      ? [{ name, boardId: null, data: { ...base, cards: [], board: null }, actor }]
      : [...byBoard].map(([board, cards]) => ({ name, boardId: board, data: { ...base, cards, board: { id: board, name: names.get(board) ?? null } }, actor }))
  await emitEvents(deps, tx, events)
}

/**
 * Records a run of the repository as reported, in the caller's transaction: made (by provider_id) or brought up to
 * date, linked to the cards it concerns, announced when something changed, and the repository's `pipeline.failed`
 * rules run when it turns `failure`. `createdBy`: the user who reported it through the API (null for a hook).
 */
export async function reportPipelineIn(
  deps: Deps,
  tx: Tx,
  actor: Actor,
  repository: GitRepositoriesTable,
  report: PipelineReport,
  createdBy: string | null,
): Promise<PipelinesTable> {
  const { q } = tx
  const at = isoAt(deps.clock.now())
  const existing = await pipelineAt(q, repository.id, report.provider_id)
  const final = FINAL_STATUSES.includes(report.status)
  const started =
    normalTime(report.started_at) ?? (report.started_at === null ? null : (existing?.started_at ?? (report.status === 'running' || final ? at : null)))
  const finished =
    normalTime(report.finished_at) ?? (report.finished_at === null || !final ? null : existing?.status === report.status ? (existing.finished_at ?? at) : at)
  const next = {
    name: report.name,
    branch: report.branch,
    commit_sha: report.commit,
    status: report.status,
    url: report.url,
    started_at: started,
    finished_at: finished,
  }
  let row: PipelinesTable
  let changed: boolean
  if (!existing) {
    row = {
      id: report.id ?? newId(),
      repository_id: repository.id,
      provider_id: report.provider_id,
      ...next,
      created_by: createdBy,
      created_at: at,
      updated_at: at,
    }
    await insertPipeline(q, row)
    changed = true
  } else {
    const set = Object.fromEntries(Object.entries(next).filter(([k, v]) => existing[k as keyof typeof next] !== v)) as Partial<PipelinesTable>
    changed = Object.keys(set).length > 0
    row = { ...existing, ...set }
    if (changed) await updatePipelineRow(q, existing.id, { ...set, updated_at: (row.updated_at = at) })
  }
  const fresh = await linkPipelineCards(q, row.id, await cardsOfRun(q, repository, report), at)
  if (fresh.length && !changed) await updatePipelineRow(q, row.id, { updated_at: (row.updated_at = at) })
  if (changed || fresh.length) await announce(deps, tx, actor, repository, row, existing?.status ?? null, !existing)
  if (row.status === 'failure' && existing?.status !== 'failure') {
    const cards = (await cardsOfPipelines(q, [row.id])).map((l) => l.card_id)
    await runRules(deps, tx, repository, 'pipeline.failed', cards)
  }
  return row
}

/** A pipeline the actor sees; 404 otherwise. */
async function visiblePipelineRow(q: Q, actor: Actor, id: string): Promise<PipelinesTable> {
  const row = await visiblePipeline(q, actor.user, isAdmin(actor), id)
  if (!row) throw notFound('pipeline')
  return row
}

async function viewFor(q: Q, actor: Actor, row: PipelinesTable): Promise<PipelineView> {
  return (await pipelineViews(q, [row], await cardBoardsSeenBy(q, actor.user)))[0]
}

export async function listPipelines(deps: Deps, actor: Actor, params: ListParams & { repository?: string; card?: string }) {
  const { q } = deps.db
  const card = params.card ? (await visibleCard(q, actor, params.card)).id : undefined
  const base = visiblePipelinesQuery(q, actor.user, isAdmin(actor), { repository: params.repository, card })
  const boards = await cardBoardsSeenBy(q, actor.user)
  return listPage(deps.db, base, PIPELINE_LIST, params, async (rows: PipelinesTable[], expand) =>
    expandRepository(q, await pipelineViews(q, rows, boards), expand),
  )
}

export async function getPipelineFor(deps: Deps, actor: Actor, id: string, expand?: string) {
  const { q } = deps.db
  const shown = parseExpand(expand, PIPELINE_LIST.expand)
  return (await expandRepository(q, [await viewFor(q, actor, await visiblePipelineRow(q, actor, id))], shown))[0]
}

/** The repository a report names, by id or full name, if the actor sees it (422 naming `repository` otherwise). */
async function namedRepository(q: Q, actor: Actor, named: string): Promise<GitRepositoriesTable> {
  const byId = await getRepository(q, named)
  const found = byId ? [byId] : named.includes('/') ? await repositoriesNamed(q, named) : []
  if (found.length > 1) throw invalidField('repository', `Several connections have a repository named ${named}: give its record id.`)
  if (found.length === 0) throw invalidField('repository', 'No such git repository.')
  return visibleRepository(q, actor, found[0].id).catch(() => {
    throw invalidField('repository', 'No such git repository.')
  })
}

export async function createPipeline(deps: Deps, actor: Actor, input: CreatePipelineInput): Promise<PipelineView> {
  return deps.db.tx(async (tx) => {
    const repository = await namedRepository(tx.q, actor, input.repository)
    const id = newId()
    const providerId = input.provider_id ?? id
    const taken = await pipelineAt(tx.q, repository.id, providerId)
    if (taken)
      throw conflict(`The repository has a pipeline with provider_id ${providerId} already (${taken.id}): PATCH /v1/pipelines/${taken.id} to update it.`)
    const row = await reportPipelineIn(
      deps,
      tx,
      actor,
      repository,
      {
        id,
        provider_id: providerId,
        name: input.name,
        branch: input.branch ?? null,
        commit: input.commit?.toLowerCase() ?? null,
        commit_message: null,
        status: input.status,
        url: input.url ?? null,
        started_at: input.started_at,
        finished_at: input.finished_at,
      },
      creatorId(actor),
    )
    return viewFor(tx.q, actor, row)
  })
}

export async function updatePipeline(deps: Deps, actor: Actor, id: string, input: UpdatePipelineInput): Promise<PipelineView> {
  return deps.db.tx(async (tx) => {
    const row = await visiblePipelineRow(tx.q, actor, id)
    const repository = await getRepository(tx.q, row.repository_id)
    if (!repository) throw notFound('pipeline')
    const status = input.status ?? row.status
    const next = await reportPipelineIn(
      deps,
      tx,
      actor,
      repository,
      {
        provider_id: row.provider_id,
        name: input.name ?? row.name,
        branch: row.branch,
        commit: row.commit_sha,
        commit_message: null,
        status,
        url: input.url !== undefined ? input.url : row.url,
        // Times not given are kept, or set by the status (see reportPipelineIn).
        started_at: input.started_at !== undefined ? input.started_at : (row.started_at ?? undefined),
        finished_at: input.finished_at !== undefined ? input.finished_at : status === row.status ? (row.finished_at ?? undefined) : undefined,
      },
      row.created_by,
    )
    return viewFor(tx.q, actor, (await getPipeline(tx.q, next.id))!)
  })
}

/** Deletes a pipeline: owners and admins, or who reported it through the API (403 for anyone else who sees it). No event. */
export async function deletePipeline(deps: Deps, actor: Actor, id: string): Promise<void> {
  await deps.db.tx(async ({ q }) => {
    const row = await visiblePipelineRow(q, actor, id)
    if (!isAdmin(actor) && row.created_by !== actor.user.id) throw forbidden('Only owners, admins and who reported a pipeline delete it.')
    await deletePipelineRow(q, id)
  })
}

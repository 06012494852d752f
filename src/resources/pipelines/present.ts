// Pipelines in API shape, with the cards they concern (those of the boards the viewer sees), batch-loaded for a page.
import type { Q } from '../../db/database.js'
import type { PipelinesTable } from '../../db/types.js'
import { creatorsOf } from '../users/present.js'
import type { PipelineView } from './schema.js'
import { cardsOfPipelines, pipelinesOfCards } from './store.js'

/** Pipelines with their cards: only those on `boards` when given (a viewer who does not see every board). */
export async function pipelineViews(q: Q, rows: readonly PipelinesTable[], boards?: ReadonlySet<string>): Promise<PipelineView[]> {
  const links = await cardsOfPipelines(
    q,
    rows.map((r) => r.id),
  )
  const cards = new Map<string, string[]>()
  for (const l of links) {
    if (boards && !boards.has(l.board_id)) continue
    const list = cards.get(l.pipeline_id)
    if (list) list.push(l.card_id)
    else cards.set(l.pipeline_id, [l.card_id])
  }
  const creator = await creatorsOf(q, rows)
  return rows.map((r) => ({
    id: r.id,
    repository: r.repository_id,
    provider_id: r.provider_id,
    name: r.name,
    branch: r.branch,
    commit: r.commit_sha,
    status: r.status,
    url: r.url,
    started_at: r.started_at,
    finished_at: r.finished_at,
    cards: cards.get(r.id) ?? [],
    created_by: creator(r.created_by),
    created: r.created_at,
    updated: r.updated_at,
  }))
}

/** `expand=pipelines` on cards: each card's pipelines, newest first (`boards`: the boards the viewer sees, as above). */
export async function pipelinesByCard(q: Q, cardIds: readonly string[], boards?: ReadonlySet<string>): Promise<Map<string, PipelineView[]>> {
  const linked = await pipelinesOfCards(q, cardIds)
  const views = new Map((await pipelineViews(q, [...new Map(linked.map((l) => [l.pipeline.id, l.pipeline])).values()], boards)).map((v) => [v.id, v]))
  const out = new Map<string, PipelineView[]>()
  for (const { card_id, pipeline } of linked) {
    const list = out.get(card_id)
    const view = views.get(pipeline.id)!
    if (list) list.push(view)
    else out.set(card_id, [view])
  }
  return out
}

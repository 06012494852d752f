// Pipeline queries: the runs, and the cards each concerns.
import type { Viewer } from '../../access/visibility.js'
import type { Q } from '../../db/database.js'
import type { PipelinesTable } from '../../db/types.js'
import { linkCardsTo, visibleLinkedQuery } from '../git/published.js'

export const getPipeline = (q: Q, id: string) => q.selectFrom('pipelines').selectAll().where('id', '=', id).executeTakeFirst()
export const pipelineAt = (q: Q, repositoryId: string, providerId: string) =>
  q.selectFrom('pipelines').selectAll().where('repository_id', '=', repositoryId).where('provider_id', '=', providerId).executeTakeFirst()
export const insertPipeline = (q: Q, row: PipelinesTable) => q.insertInto('pipelines').values(row).execute()
export const deletePipelineRow = (q: Q, id: string) => q.deleteFrom('pipelines').where('id', '=', id).execute()
export const updatePipelineRow = (q: Q, id: string, set: Partial<PipelinesTable>) => q.updateTable('pipelines').set(set).where('id', '=', id).execute()

const PIPELINE_LINKS = { table: 'pipelines', links: 'pipeline_cards', key: 'pipeline_id' } as const

/**
 * Base query of the list: every pipeline for owners and admins (`all`), else those concerning a card of a board the
 * viewer sees, or of a repository on such a board (the sight of git resources: visibleLinkedQuery).
 */
export const visiblePipelinesQuery = (q: Q, viewer: Viewer, all: boolean, only: { repository?: string; card?: string } = {}) =>
  visibleLinkedQuery(q, PIPELINE_LINKS, viewer, all, only)

/** One pipeline, if the viewer sees it (see visiblePipelinesQuery). */
export const visiblePipeline = (q: Q, viewer: Viewer, all: boolean, id: string) =>
  visiblePipelinesQuery(q, viewer, all).selectAll('pipelines').where('pipelines.id', '=', id).executeTakeFirst()

/** The cards of each pipeline with their boards, oldest link first. */
export async function cardsOfPipelines(q: Q, ids: readonly string[]): Promise<{ pipeline_id: string; card_id: string; board_id: string }[]> {
  if (ids.length === 0) return []
  return q
    .selectFrom('pipeline_cards')
    .innerJoin('cards', 'cards.id', 'pipeline_cards.card_id')
    .select(['pipeline_cards.pipeline_id', 'pipeline_cards.card_id', 'cards.board_id'])
    .where('pipeline_cards.pipeline_id', 'in', [...new Set(ids)])
    .orderBy('pipeline_cards.created_at')
    .orderBy('pipeline_cards.card_id')
    .execute()
}

/** Links cards to a pipeline; those it has already are left. Returns the cards newly linked. */
export const linkPipelineCards = (q: Q, pipelineId: string, cardIds: readonly string[], at: string) => linkCardsTo(q, PIPELINE_LINKS, pipelineId, cardIds, at)

/** The pipelines of each card, newest first. */
export async function pipelinesOfCards(q: Q, cardIds: readonly string[]): Promise<{ card_id: string; pipeline: PipelinesTable }[]> {
  if (cardIds.length === 0) return []
  const rows = await q
    .selectFrom('pipeline_cards')
    .innerJoin('pipelines', 'pipelines.id', 'pipeline_cards.pipeline_id')
    .selectAll('pipelines')
    .select('pipeline_cards.card_id')
    .where('pipeline_cards.card_id', 'in', [...new Set(cardIds)])
    .orderBy('pipelines.created_at', 'desc')
    .orderBy('pipelines.id', 'desc')
    .execute()
  return rows.map(({ card_id, ...pipeline }) => ({ card_id, pipeline }))
}

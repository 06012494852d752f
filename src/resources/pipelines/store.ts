// Pipeline queries: the runs, and the cards each concerns.
import { visibleBoardIds, type Viewer } from '../../access/visibility.js'
import type { Q } from '../../db/database.js'
import type { PipelinesTable } from '../../db/types.js'

export const getPipeline = (q: Q, id: string) => q.selectFrom('pipelines').selectAll().where('id', '=', id).executeTakeFirst()
export const pipelineAt = (q: Q, repositoryId: string, providerId: string) =>
  q.selectFrom('pipelines').selectAll().where('repository_id', '=', repositoryId).where('provider_id', '=', providerId).executeTakeFirst()
export const insertPipeline = (q: Q, row: PipelinesTable) => q.insertInto('pipelines').values(row).execute()
export const deletePipelineRow = (q: Q, id: string) => q.deleteFrom('pipelines').where('id', '=', id).execute()
export const updatePipelineRow = (q: Q, id: string, set: Partial<PipelinesTable>) => q.updateTable('pipelines').set(set).where('id', '=', id).execute()

/**
 * Base query of the list: every pipeline for owners and admins (`all`), else those concerning a card of a board the
 * viewer sees, or of a repository on such a board.
 */
export function visiblePipelinesQuery(q: Q, viewer: Viewer, all: boolean, only: { repository?: string; card?: string } = {}) {
  let query = q.selectFrom('pipelines')
  if (only.repository) query = query.where('pipelines.repository_id', '=', only.repository)
  if (only.card)
    query = query.where(
      'pipelines.id',
      'in',
      q.selectFrom('pipeline_cards').select('pipeline_cards.pipeline_id').where('pipeline_cards.card_id', '=', only.card),
    )
  if (all) return query
  const boards = visibleBoardIds(q, viewer)
  return query.where((eb) =>
    eb.or([
      eb(
        'pipelines.id',
        'in',
        eb
          .selectFrom('pipeline_cards')
          .innerJoin('cards', 'cards.id', 'pipeline_cards.card_id')
          .select('pipeline_cards.pipeline_id')
          .where('cards.board_id', 'in', boards),
      ),
      eb('pipelines.repository_id', 'in', eb.selectFrom('git_repositories').select('git_repositories.id').where('git_repositories.board_id', 'in', boards)),
    ]),
  )
}

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
export async function linkPipelineCards(q: Q, pipelineId: string, cardIds: readonly string[], at: string): Promise<string[]> {
  if (cardIds.length === 0) return []
  const had = new Set(
    (
      await q
        .selectFrom('pipeline_cards')
        .select('card_id')
        .where('pipeline_id', '=', pipelineId)
        .where('card_id', 'in', [...cardIds])
        .execute()
    ).map((r) => r.card_id),
  )
  const fresh = [...new Set(cardIds)].filter((id) => !had.has(id))
  if (fresh.length)
    await q
      .insertInto('pipeline_cards')
      .values(fresh.map((card_id) => ({ pipeline_id: pipelineId, card_id, created_at: at })))
      .execute()
  return fresh
}

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

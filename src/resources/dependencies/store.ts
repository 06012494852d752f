// Dependency queries: rows, the graph's edges for the cycle check, and the counts and cards a page of cards shows.
import { visibleBoardIds, type Viewer } from '../../access/visibility.js'
import type { Q } from '../../db/database.js'
import type { CardDependenciesTable } from '../../db/types.js'

export const getDependency = (q: Q, id: string) => q.selectFrom('card_dependencies').selectAll().where('id', '=', id).executeTakeFirst()
export const findDependency = (q: Q, blocker: string, blocked: string) =>
  q.selectFrom('card_dependencies').selectAll().where('blocker_id', '=', blocker).where('blocked_id', '=', blocked).executeTakeFirst()
export const insertDependency = (q: Q, row: CardDependenciesTable) => q.insertInto('card_dependencies').values(row).execute()
/** Deletes a dependency; false when it was already gone (a concurrent delete). */
export const deleteDependencyRow = async (q: Q, id: string): Promise<boolean> =>
  Number((await q.deleteFrom('card_dependencies').where('id', '=', id).executeTakeFirst()).numDeletedRows) > 0

/** The cards (id, key, board) of some ids, for the cycle message and the events. */
export const cardsBrief = (q: Q, ids: readonly string[]) =>
  ids.length === 0
    ? Promise.resolve([])
    : q
        .selectFrom('cards')
        .select(['id', 'key', 'title', 'board_id', 'completed'])
        .where('id', 'in', [...new Set(ids)])
        .execute()

/** The edges leaving these cards (what each blocks), at most `limit`: one step of the cycle check's walk. */
export const blockedBy = (q: Q, blockers: readonly string[], limit: number) =>
  q
    .selectFrom('card_dependencies')
    .select(['blocker_id', 'blocked_id'])
    .where('blocker_id', 'in', [...blockers])
    .limit(limit)
    .execute()

/**
 * Dependencies a viewer sees: those with a card on a board the viewer sees (the other card may be elsewhere), or with
 * `card` those of that card, in both directions.
 */
export function visibleDependenciesQuery(q: Q, viewer: Viewer, card?: string) {
  let query = q.selectFrom('card_dependencies')
  if (card) return query.where((eb) => eb.or([eb('card_dependencies.blocker_id', '=', card), eb('card_dependencies.blocked_id', '=', card)]))
  const seen = q.selectFrom('cards').select('cards.id').where('cards.board_id', 'in', visibleBoardIds(q, viewer))
  query = query.where((eb) => eb.or([eb('card_dependencies.blocked_id', 'in', seen), eb('card_dependencies.blocker_id', 'in', seen)]))
  return query
}

/** Every dependency touching these cards, in either direction, oldest first. */
export const dependenciesOfCards = (q: Q, cardIds: readonly string[]): Promise<CardDependenciesTable[]> =>
  cardIds.length === 0
    ? Promise.resolve([])
    : q
        .selectFrom('card_dependencies')
        .selectAll()
        .where((eb) => eb.or([eb('blocker_id', 'in', [...cardIds]), eb('blocked_id', 'in', [...cardIds])]))
        .orderBy('created_at')
        .orderBy('id')
        .execute()

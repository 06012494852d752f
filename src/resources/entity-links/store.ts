// Entity link queries, a card's parent chain (for the cycle check) and the subtask counts of a page of cards.
import { sql } from 'kysely'
import { visibleBoardIds, type Viewer } from '../../access/visibility.js'
import type { Q } from '../../db/database.js'
import type { EntityLinksTable } from '../../db/types.js'

export const getLink = (q: Q, id: string) => q.selectFrom('entity_links').selectAll().where('id', '=', id).executeTakeFirst()
export const insertLink = (q: Q, row: EntityLinksTable) => q.insertInto('entity_links').values(row).execute()
export const updateLinkRow = (q: Q, id: string, set: Partial<EntityLinksTable>) => q.updateTable('entity_links').set(set).where('id', '=', id).execute()
/** Deletes a link; false when it was already gone (a concurrent delete). */
export const deleteLinkRow = async (q: Q, id: string): Promise<boolean> =>
  Number((await q.deleteFrom('entity_links').where('id', '=', id).executeTakeFirst()).numDeletedRows) > 0

/** Inserts many links in one statement. */
export const insertLinks = async (q: Q, rows: readonly EntityLinksTable[]) => {
  if (rows.length)
    await q
      .insertInto('entity_links')
      .values([...rows])
      .execute()
}
/** Deletes links; returns the ids of those it deleted (a concurrent delete may have taken some). */
export const deleteLinkRows = async (q: Q, ids: readonly string[]): Promise<string[]> =>
  ids.length === 0
    ? []
    : (
        await q
          .deleteFrom('entity_links')
          .where('id', 'in', [...ids])
          .returning('id')
          .execute()
      ).map((r) => r.id)
/** The parent_of links whose targets are these cards (one at most each). */
export const parentLinksOf = (q: Q, cardIds: readonly string[]): Promise<EntityLinksTable[]> =>
  cardIds.length === 0
    ? Promise.resolve([])
    : q
        .selectFrom('entity_links')
        .selectAll()
        .where('kind', '=', 'parent_of')
        .where('target_card_id', 'in', [...cardIds])
        .execute()

/** The parent_of link whose target is this card (a card has at most one). */
export const parentLinkOf = (q: Q, cardId: string) =>
  q.selectFrom('entity_links').selectAll().where('kind', '=', 'parent_of').where('target_card_id', '=', cardId).executeTakeFirst()

/** The target column of each target type. */
export const TARGET_COLUMN = { card: 'target_card_id', note: 'target_note_id', milestone: 'target_milestone_id', url: 'url' } as const

/** A link of this kind from this card to this target, if there is one. */
export const findLink = (q: Q, kind: EntityLinksTable['kind'], source: string, type: EntityLinksTable['target_type'], target: string) =>
  q
    .selectFrom('entity_links')
    .selectAll()
    .where('kind', '=', kind)
    .where('source_card_id', '=', source)
    .where('target_type', '=', type)
    .where(TARGET_COLUMN[type], '=', target)
    .executeTakeFirst()

/** The cards (id, key, board) of some ids. */
export const cardsBrief = (q: Q, ids: readonly string[]) =>
  ids.length === 0
    ? Promise.resolve([])
    : q
        .selectFrom('cards')
        .select(['id', 'key', 'title', 'board_id', 'completed', 'parent_id'])
        .where('id', 'in', [...new Set(ids)])
        .execute()

/**
 * A card and its ancestors, nearest first (the card at depth 0), at most `limit` of them: one recursive query. Parent
 * chains have no cycle (every change is checked), and the depth bound holds even if one did.
 */
export async function ancestorsOf(q: Q, cardId: string, limit: number): Promise<{ id: string; key: string }[]> {
  const rows = await sql<{ id: string; key: string; depth: number }>`
    WITH RECURSIVE up(id, key, parent_id, depth) AS (
      SELECT id, key, parent_id, 0 FROM cards WHERE id = ${cardId}
      UNION ALL
      SELECT c.id, c.key, c.parent_id, up.depth + 1 FROM cards c JOIN up ON c.id = up.parent_id WHERE up.depth < ${sql.lit(limit)}
    )
    SELECT id, key, depth FROM up ORDER BY depth`.execute(q)
  return rows.rows.map((r) => ({ id: r.id, key: r.key }))
}

/** Links a viewer sees: from a card on a board the viewer sees, or to one; with `card`, those from or to that card. */
export function visibleLinksQuery(q: Q, viewer: Viewer, card?: string) {
  const query = q.selectFrom('entity_links')
  if (card) return query.where((eb) => eb.or([eb('entity_links.source_card_id', '=', card), eb('entity_links.target_card_id', '=', card)]))
  const seen = q.selectFrom('cards').select('cards.id').where('cards.board_id', 'in', visibleBoardIds(q, viewer))
  return query.where((eb) => eb.or([eb('entity_links.source_card_id', 'in', seen), eb('entity_links.target_card_id', 'in', seen)]))
}

/** Every link from or to these cards, oldest first. */
export const linksOfCards = (q: Q, cardIds: readonly string[]): Promise<EntityLinksTable[]> =>
  cardIds.length === 0
    ? Promise.resolve([])
    : q
        .selectFrom('entity_links')
        .selectAll()
        .where((eb) => eb.or([eb('source_card_id', 'in', [...cardIds]), eb('target_card_id', 'in', [...cardIds])]))
        .orderBy('created_at')
        .orderBy('id')
        .execute()

/** The cards whose parent one of these cards is (any state). */
export const childrenOf = (q: Q, cardIds: readonly string[]) =>
  cardIds.length === 0
    ? Promise.resolve([])
    : q
        .selectFrom('cards')
        .selectAll()
        .where('parent_id', 'in', [...cardIds])
        .orderBy('id')
        .execute()

/** Takes these cards off their parent, in one statement. */
export const clearParent = (q: Q, ids: readonly string[], at: string) =>
  ids.length === 0
    ? Promise.resolve()
    : q
        .updateTable('cards')
        .set({ parent_id: null, updated_at: at })
        .where('id', 'in', [...ids])
        .execute()
        .then(() => undefined)

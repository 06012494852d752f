// Card template queries; names are unique per board, case-insensitively.
import { visibleBoardIds, type Viewer } from '../../access/visibility.js'
import type { Q } from '../../db/database.js'
import type { CardTemplatesTable } from '../../db/types.js'

export const getCardTemplate = (q: Q, id: string) => q.selectFrom('card_templates').selectAll().where('id', '=', id).executeTakeFirst()
export const getCardTemplateByName = (q: Q, boardId: string, name: string) =>
  q
    .selectFrom('card_templates')
    .selectAll()
    .where('board_id', '=', boardId)
    .where((eb) => eb(eb.fn('taskd_fold', ['name']), '=', eb.fn('taskd_fold', [eb.val(name)])))
    .executeTakeFirst()
export const insertCardTemplate = (q: Q, row: CardTemplatesTable) => q.insertInto('card_templates').values(row).execute()
export const updateCardTemplateRow = (q: Q, id: string, set: Partial<CardTemplatesTable>) =>
  q.updateTable('card_templates').set(set).where('id', '=', id).execute()
/** Deletes a card template; false when it was already gone (a concurrent delete). */
export const deleteCardTemplateRow = async (q: Q, id: string): Promise<boolean> =>
  Number((await q.deleteFrom('card_templates').where('id', '=', id).executeTakeFirst()).numDeletedRows) > 0

/** Base query of the route: the card templates of the boards a user sees, optionally of one board. */
export function visibleCardTemplatesQuery(q: Q, viewer: Viewer, boardId?: string) {
  const query = q.selectFrom('card_templates').where('card_templates.board_id', 'in', visibleBoardIds(q, viewer))
  return boardId ? query.where('card_templates.board_id', '=', boardId) : query
}

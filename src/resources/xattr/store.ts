// Custom field queries: definitions, their select options, and the value rows on cards.
import { visibleBoardIds, type Viewer } from '../../access/visibility.js'
import type { Q } from '../../db/database.js'
import type { CardXattrTable, XattrFieldsTable, XattrOptionsTable } from '../../db/types.js'

export const getField = (q: Q, id: string) => q.selectFrom('xattr_fields').selectAll().where('id', '=', id).executeTakeFirst()
export const fieldsOfBoards = (q: Q, boardIds: readonly string[]): Promise<XattrFieldsTable[]> =>
  boardIds.length === 0
    ? Promise.resolve([])
    : q
        .selectFrom('xattr_fields')
        .selectAll()
        .where('board_id', 'in', [...new Set(boardIds)])
        .orderBy('position')
        .orderBy('id')
        .execute()
export const fieldsOfBoard = (q: Q, boardId: string) => fieldsOfBoards(q, [boardId])
/** The fields of every board that use this key (a sort across boards), or of one board: the query, for `db.read`. */
export const fieldsByKeyQuery = (q: Q, key: string, boardId?: string) => {
  const query = q.selectFrom('xattr_fields').select(['id', 'type', 'board_id']).where('key', '=', key)
  return boardId ? query.where('board_id', '=', boardId) : query
}
export const lastFieldPosition = async (q: Q, boardId: string): Promise<number> =>
  Number(
    (
      await q
        .selectFrom('xattr_fields')
        .select((eb) => eb.fn.max('position').as('p'))
        .where('board_id', '=', boardId)
        .executeTakeFirst()
    )?.p ?? 0,
  )
export const insertField = (q: Q, row: XattrFieldsTable) => q.insertInto('xattr_fields').values(row).execute()
export const updateFieldRow = (q: Q, id: string, set: Partial<XattrFieldsTable>) => q.updateTable('xattr_fields').set(set).where('id', '=', id).execute()
/** Deletes a field (its options and values go by ON DELETE CASCADE); false when it was already gone. */
export const deleteFieldRow = async (q: Q, id: string): Promise<boolean> =>
  Number((await q.deleteFrom('xattr_fields').where('id', '=', id).executeTakeFirst()).numDeletedRows) > 0

export const optionsOfFields = (q: Q, fieldIds: readonly string[]): Promise<XattrOptionsTable[]> =>
  fieldIds.length === 0
    ? Promise.resolve([])
    : q
        .selectFrom('xattr_options')
        .selectAll()
        .where('field_id', 'in', [...new Set(fieldIds)])
        .orderBy('field_id')
        .orderBy('position')
        .execute()
export const insertOptions = async (q: Q, rows: XattrOptionsTable[]) => {
  if (rows.length) await q.insertInto('xattr_options').values(rows).execute()
}
export const updateOptionRow = (q: Q, id: string, set: Partial<XattrOptionsTable>) => q.updateTable('xattr_options').set(set).where('id', '=', id).execute()
/** Drops options (and the values that chose them). */
export async function deleteOptions(q: Q, fieldId: string, ids: readonly string[]) {
  if (ids.length === 0) return
  await q.deleteFrom('card_xattr').where('field_id', '=', fieldId).where('str', 'in', ids).execute()
  await q.deleteFrom('xattr_options').where('id', 'in', ids).execute()
}

export const valuesOfCards = (q: Q, cardIds: readonly string[]): Promise<CardXattrTable[]> =>
  cardIds.length === 0
    ? Promise.resolve([])
    : q
        .selectFrom('card_xattr')
        .selectAll()
        .where('card_id', 'in', [...new Set(cardIds)])
        .orderBy('card_id')
        .orderBy('field_id')
        .orderBy('seq')
        .execute()
/** The value rows of some fields on some cards (a rollup's source field on the related cards). */
export const valuesOf = (q: Q, fieldIds: readonly string[], cardIds: readonly string[]): Promise<CardXattrTable[]> =>
  fieldIds.length === 0 || cardIds.length === 0
    ? Promise.resolve([])
    : q
        .selectFrom('card_xattr')
        .selectAll()
        .where('field_id', 'in', [...new Set(fieldIds)])
        .where('card_id', 'in', [...new Set(cardIds)])
        .execute()
/** Deletes the rows of one field on these cards. */
export async function clearValues(q: Q, fieldId: string, cardIds: readonly string[]) {
  if (cardIds.length)
    await q
      .deleteFrom('card_xattr')
      .where('field_id', '=', fieldId)
      .where('card_id', 'in', [...cardIds])
      .execute()
}
/** Inserts value rows in one statement. */
export async function insertValues(q: Q, rows: readonly CardXattrTable[]) {
  if (rows.length)
    await q
      .insertInto('card_xattr')
      .values([...rows])
      .execute()
}
/** Replaces a card's rows of these fields by `rows`. */
export async function setValues(q: Q, cardId: string, fieldIds: readonly string[], rows: CardXattrTable[]) {
  if (fieldIds.length) await q.deleteFrom('card_xattr').where('card_id', '=', cardId).where('field_id', 'in', fieldIds).execute()
  if (rows.length) await q.insertInto('card_xattr').values(rows).execute()
}
/**
 * The cards (not in the trash) holding a value of a field, or (`optionIds`) one of these options of it, in id order:
 * what a deletion of the field or of its options takes a value from.
 */
export async function cardsHoldingValues(q: Q, fieldId: string, optionIds?: readonly string[]): Promise<string[]> {
  if (optionIds?.length === 0) return []
  let query = q
    .selectFrom('card_xattr')
    .innerJoin('cards', 'cards.id', 'card_xattr.card_id')
    .select('card_xattr.card_id')
    .distinct()
    .where('card_xattr.field_id', '=', fieldId)
    .where('cards.trashed', '=', 0)
  if (optionIds) query = query.where('card_xattr.str', 'in', [...optionIds])
  return (await query.orderBy('card_xattr.card_id').execute()).map((r) => r.card_id)
}
export const dropValuesOfCard = (q: Q, cardId: string) => q.deleteFrom('card_xattr').where('card_id', '=', cardId).execute()
/** Base query of the field list: the fields of the boards a user sees, optionally of one board. */
export function visibleFieldsQuery(q: Q, viewer: Viewer, boardId?: string) {
  const query = q.selectFrom('xattr_fields').where('xattr_fields.board_id', 'in', visibleBoardIds(q, viewer))
  return boardId ? query.where('xattr_fields.board_id', '=', boardId) : query
}

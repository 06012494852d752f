// Form queries; slugs are unique in the workspace (lower-case by their pattern).
import { visibleBoardIds, type Viewer } from '../../access/visibility.js'
import type { Q } from '../../db/database.js'
import type { FormsTable } from '../../db/types.js'

export const getForm = (q: Q, id: string) => q.selectFrom('forms').selectAll().where('id', '=', id).executeTakeFirst()
export const getFormBySlug = (q: Q, slug: string) => q.selectFrom('forms').selectAll().where('slug', '=', slug).executeTakeFirst()
/** The slugs among these that are taken (one query for a generated slug's candidates). */
export const takenSlugs = async (q: Q, slugs: readonly string[]): Promise<Set<string>> =>
  new Set(
    (
      await q
        .selectFrom('forms')
        .select('slug')
        .where('slug', 'in', [...slugs])
        .execute()
    ).map((r) => r.slug),
  )
export const insertForm = (q: Q, row: FormsTable) => q.insertInto('forms').values(row).execute()
export const updateFormRow = (q: Q, id: string, set: Partial<FormsTable>) => q.updateTable('forms').set(set).where('id', '=', id).execute()
/** Deletes a form; false when it was already gone (a concurrent delete). */
export const deleteFormRow = async (q: Q, id: string): Promise<boolean> =>
  Number((await q.deleteFrom('forms').where('id', '=', id).executeTakeFirst()).numDeletedRows) > 0

/** Base query of the list: the forms of the boards a user sees, optionally of one board. */
export function visibleFormsQuery(q: Q, viewer: Viewer, boardId?: string) {
  const query = q.selectFrom('forms').where('forms.board_id', 'in', visibleBoardIds(q, viewer))
  return boardId ? query.where('forms.board_id', '=', boardId) : query
}

/** The open form a slug names, unless its board is in the trash: what the public address serves. */
export const openFormAt = (q: Q, slug: string) =>
  q
    .selectFrom('forms')
    .innerJoin('boards', 'boards.id', 'forms.board_id')
    .selectAll('forms')
    .select('boards.name as board_name')
    .where('forms.slug', '=', slug)
    .where('forms.open', '=', 1)
    .where('boards.trashed_at', 'is', null)
    .executeTakeFirst()

// Board template queries.
import type { Q } from '../../db/database.js'
import type { TemplatesTable } from '../../db/types.js'

export const getTemplate = (q: Q, id: string) => q.selectFrom('templates').selectAll().where('id', '=', id).executeTakeFirst()
export const insertTemplate = (q: Q, row: TemplatesTable) => q.insertInto('templates').values(row).execute()
export const updateTemplateRow = (q: Q, id: string, set: Partial<TemplatesTable>) => q.updateTable('templates').set(set).where('id', '=', id).execute()
/** Deletes a template; false when it was already gone (a concurrent delete). */
export const deleteTemplateRow = async (q: Q, id: string): Promise<boolean> =>
  Number((await q.deleteFrom('templates').where('id', '=', id).executeTakeFirst()).numDeletedRows) > 0
export const templatesQuery = (q: Q) => q.selectFrom('templates')

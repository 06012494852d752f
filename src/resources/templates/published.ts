// What other families use of board templates: a template's content (a board built from it).
import type { Q } from '../../db/database.js'
import type { BoardStructure } from '../boards/schema.js'
import { getTemplate } from './store.js'

export const getTemplateContent = async (q: Q, id: string): Promise<BoardStructure | undefined> => {
  const row = await getTemplate(q, id)
  return row ? (JSON.parse(row.content) as BoardStructure) : undefined
}

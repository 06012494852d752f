// A new card filled from a card template: what the create names wins; a tag, user or custom field of the template that
// is gone (deleted, or no longer a member of the board) is skipped.
import type { Q } from '../../db/database.js'
import { invalidField } from '../../errors.js'
import { memberRoles } from '../boards/published.js'
import { getTags } from '../tags/published.js'
import { fieldsOfBoards } from '../xattr/published.js'
import { cardTemplateView } from './present.js'
import { getCardTemplate } from './store.js'

interface Fillable {
  title?: string
  description?: string
  priority?: number
  tags?: string[]
  assignees?: string[]
  xattr?: Record<string, unknown>
}

/** The create's fields completed from the template (of the same board, else 422 naming `template`), and its checklist. */
export async function fillFromCardTemplate<T extends Fillable>(
  q: Q,
  boardId: string,
  templateId: string,
  input: T,
): Promise<{ input: T; checklist: { title: string; items: string[] } | null }> {
  const row = await getCardTemplate(q, templateId)
  if (!row || row.board_id !== boardId) throw invalidField('template', 'No such card template on this board.')
  const tpl = cardTemplateView(row)
  const filled: T = { ...input }
  if (filled.title === undefined && tpl.title.trim() !== '') filled.title = tpl.title
  if (filled.description === undefined && tpl.description !== '') filled.description = tpl.description
  if (filled.priority === undefined && tpl.priority !== null) filled.priority = tpl.priority
  if (filled.tags === undefined && tpl.tags.length) {
    const live = new Set((await getTags(q, tpl.tags)).filter((t) => t.board_id === boardId).map((t) => t.id))
    filled.tags = tpl.tags.filter((id) => live.has(id))
  }
  if (filled.assignees === undefined && tpl.assignees.length) {
    const members = await memberRoles(q, boardId, tpl.assignees)
    filled.assignees = tpl.assignees.filter((id) => members.has(id))
  }
  const keys = Object.keys(tpl.xattr)
  if (keys.length) {
    const settable = new Set((await fieldsOfBoards(q, [boardId])).filter((f) => f.type !== 'rollup' && f.type !== 'formula').map((f) => f.key))
    const fromTemplate = Object.fromEntries(Object.entries(tpl.xattr).filter(([k]) => settable.has(k)))
    filled.xattr = { ...fromTemplate, ...(input.xattr ?? {}) }
  }
  return { input: filled, checklist: tpl.checklist.length ? { title: tpl.name, items: tpl.checklist } : null }
}

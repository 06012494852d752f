// Board templates: workspace-level; every member reads, the creator and workspace owners and admins change or delete.
import { type Actor, creatorId, isAdmin } from '../../access/roles.js'
import { visibleBoard } from '../../access/visibility.js'
import { isoAt } from '../../clock.js'
import type { Q } from '../../db/database.js'
import type { TemplatesTable } from '../../db/types.js'
import type { Deps } from '../../deps.js'
import { emitEvent } from '../../events/emit.js'
import { forbidden, invalidField, notFound, unprocessable } from '../../errors.js'
import { newId } from '../../ids.js'
import { listPage, type ListParams } from '../../query/list-page.js'
import { BoardStructure, MAX_STRUCTURE_CARDS } from '../boards/schema.js'
import { checkStructure, readStructure } from '../boards/structure.js'
import { templateEventData, templateView } from './present.js'
import { TEMPLATE_LIST } from './query.js'
import type { CreateTemplateInput, UpdateTemplateInput } from './schema.js'
import { deleteTemplateRow, getTemplate, insertTemplate, templatesQuery, updateTemplateRow } from './store.js'

async function found(q: Q, id: string): Promise<TemplatesTable> {
  const row = await getTemplate(q, id)
  if (!row) throw notFound('template')
  return row
}

async function toManage(q: Q, actor: Actor, id: string, action: string): Promise<TemplatesTable> {
  const row = await found(q, id)
  if (!isAdmin(actor) && row.created_by !== actor.user.id) throw forbidden(`Only the template's creator and workspace owners and admins can ${action}.`)
  return row
}

/** A template's content at most, as stored (the size of a request body): every read of the list parses it. */
const MAX_CONTENT_BYTES = 1_048_576

/**
 * The content to store, as JSON: a snapshot of a board is held to the limits given content is (counts, and the size),
 * 422 naming `board` when the board is too large to be a template.
 */
function stored(content: BoardStructure, path: 'board' | 'content'): string {
  const counts = BoardStructure.safeParse(content)
  const text = JSON.stringify(content)
  if (!counts.success || Buffer.byteLength(text) > MAX_CONTENT_BYTES)
    throw invalidField(path, `The template would be larger than a template may be (1 MB of content, ${MAX_STRUCTURE_CARDS} cards, 50 lists, 50 statuses).`)
  return text
}

const checked = (content: BoardStructure): BoardStructure => {
  const details = checkStructure(content, 'content')
  if (details.length) throw unprocessable('The request body is not valid.', details)
  return content
}

export const getTemplateFor = async (deps: Deps, _actor: Actor, id: string) => templateView(await found(deps.db.q, id))

export function listTemplates(deps: Deps, _actor: Actor, params: ListParams) {
  return listPage(deps.db, templatesQuery(deps.db.q), TEMPLATE_LIST, params, async (rows: TemplatesTable[]) => rows.map(templateView))
}

export function createTemplate(deps: Deps, actor: Actor, input: CreateTemplateInput) {
  return deps.db.tx(async (tx) => {
    const { q } = tx
    if ((input.board === undefined) === (input.content === undefined)) throw invalidField('content', 'Give either `board` (to snapshot) or `content`.')
    if (input.include_cards !== undefined && input.board === undefined) throw invalidField('include_cards', 'Only with `board`.')
    let content: BoardStructure
    if (input.board !== undefined) {
      const board = await visibleBoard(q, actor, input.board)
      content = await readStructure(q, board.id, input.include_cards ?? false)
    } else content = checked(input.content!)
    const at = isoAt(deps.clock.now())
    const row: TemplatesTable = {
      id: newId(),
      name: input.name,
      description: input.description ?? '',
      content: stored(content, input.board !== undefined ? 'board' : 'content'),
      created_by: creatorId(actor),
      created_at: at,
      updated_at: at,
    }
    await insertTemplate(q, row)
    await emitEvent(deps, tx, { name: 'template.created', boardId: null, data: templateEventData(row), actor })
    return templateView(row)
  })
}

export function updateTemplate(deps: Deps, actor: Actor, id: string, input: UpdateTemplateInput) {
  return deps.db.tx(async (tx) => {
    const row = await toManage(tx.q, actor, id, 'change it')
    const set: Partial<TemplatesTable> = {}
    if (input.name !== undefined) set.name = input.name
    if (input.description !== undefined) set.description = input.description
    if (input.content !== undefined) set.content = stored(checked(input.content), 'content')
    if (Object.keys(set).length === 0) return templateView(row)
    await updateTemplateRow(tx.q, id, { ...set, updated_at: isoAt(deps.clock.now()) })
    const next = (await getTemplate(tx.q, id))!
    await emitEvent(deps, tx, { name: 'template.updated', boardId: null, data: templateEventData(next), actor })
    return templateView(next)
  })
}

export function deleteTemplate(deps: Deps, actor: Actor, id: string): Promise<void> {
  return deps.db.tx(async (tx) => {
    const row = await toManage(tx.q, actor, id, 'delete it')
    if (!(await deleteTemplateRow(tx.q, id))) throw notFound('template')
    await emitEvent(deps, tx, { name: 'template.deleted', boardId: null, data: templateEventData(row), actor })
  })
}

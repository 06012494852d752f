// Card templates: per board; members read, writers manage (like tags). Names are unique per board, case-insensitively.
import type { Actor } from '../../access/roles.js'
import { visibleBoard, visibleOnBoard } from '../../access/visibility.js'
import { isoAt } from '../../clock.js'
import type { Q } from '../../db/database.js'
import type { CardTemplatesTable } from '../../db/types.js'
import type { Deps } from '../../deps.js'
import { emitEvent } from '../../events/emit.js'
import { conflict, notFound, unprocessable, type ErrorDetail } from '../../errors.js'
import { newId } from '../../ids.js'
import { listPage, type ListParams } from '../../query/list-page.js'
import { expandBoard } from '../boards/present.js'
import { lockBoard, memberRoles } from '../boards/published.js'
import { getTags } from '../tags/published.js'
import { fieldsOfBoards } from '../xattr/published.js'
import { cardTemplateEventData, cardTemplateView } from './present.js'
import { CARD_TEMPLATE_LIST } from './query.js'
import type { CreateCardTemplateInput, UpdateCardTemplateInput } from './schema.js'
import { deleteCardTemplateRow, getCardTemplate, getCardTemplateByName, insertCardTemplate, updateCardTemplateRow, visibleCardTemplatesQuery } from './store.js'

const COMPUTED = ['rollup', 'formula']

const visibleCardTemplate = async (q: Q, actor: Actor, id: string): Promise<CardTemplatesTable> =>
  visibleOnBoard(q, actor, await getCardTemplate(q, id), 'card_template')

export const getCardTemplateFor = async (deps: Deps, actor: Actor, id: string) => cardTemplateView(await visibleCardTemplate(deps.db.q, actor, id))

export function listCardTemplates(deps: Deps, actor: Actor, params: ListParams & { board?: string }) {
  const { q } = deps.db
  return listPage(
    deps.db,
    visibleCardTemplatesQuery(q, actor.user, params.board),
    CARD_TEMPLATE_LIST,
    params,
    (rows: CardTemplatesTable[], expand) => expandBoard(q, rows.map(cardTemplateView), expand),
    { anchored: Boolean(params.board) },
  )
}

/** Tags, assignees and custom field keys must be the board's when saved (422 naming the field). */
async function checkRefs(q: Q, boardId: string, input: UpdateCardTemplateInput): Promise<void> {
  const details: ErrorDetail[] = []
  if (input.tags?.length) {
    const tags = await getTags(q, input.tags)
    if (tags.length !== new Set(input.tags).size || tags.some((t) => t.board_id !== boardId))
      details.push({ path: 'tags', message: 'Every entry must be a tag id of this board.' })
  }
  if (input.assignees?.length) {
    const ids = [...new Set(input.assignees)]
    if ((await memberRoles(q, boardId, ids)).size !== ids.length)
      details.push({ path: 'assignees', message: 'Every entry must be the id of a member of the board.' })
  }
  if (input.xattr && Object.keys(input.xattr).length) {
    const byKey = new Map((await fieldsOfBoards(q, [boardId])).map((f) => [f.key, f]))
    for (const key of Object.keys(input.xattr)) {
      const f = byKey.get(key)
      const path = `xattr.${key.length > 80 ? `${key.slice(0, 80)}…` : key}`
      if (!f) details.push({ path, message: `${path}: no custom field with this key on the board.` })
      else if (COMPUTED.includes(f.type)) details.push({ path, message: `${path}: a ${f.type} field is computed and cannot be set.` })
    }
  }
  if (details.length) throw unprocessable('The request body is not valid.', details)
}

const columns = (input: UpdateCardTemplateInput): Partial<CardTemplatesTable> => {
  const set: Partial<CardTemplatesTable> = {}
  if (input.name !== undefined) set.name = input.name
  if (input.title !== undefined) set.title = input.title
  if (input.description !== undefined) set.description = input.description
  if (input.priority !== undefined) set.priority = input.priority
  if (input.tags !== undefined) set.tags = JSON.stringify([...new Set(input.tags)])
  if (input.assignees !== undefined) set.assignees = JSON.stringify([...new Set(input.assignees)])
  if (input.checklist !== undefined) set.checklist = JSON.stringify(input.checklist)
  if (input.xattr !== undefined) set.xattr = JSON.stringify(input.xattr)
  return set
}

const clash = (name: string) => conflict(`The board already has a card template named "${name}".`)

export function createCardTemplate(deps: Deps, actor: Actor, input: CreateCardTemplateInput) {
  return deps.db.tx(async (tx) => {
    const board = await visibleBoard(tx.q, actor, input.board)
    await lockBoard(tx.q, board.id) // two names that fold alike, sent at once, cannot both pass the check
    if (await getCardTemplateByName(tx.q, board.id, input.name)) throw clash(input.name)
    await checkRefs(tx.q, board.id, input)
    const at = isoAt(deps.clock.now())
    const row: CardTemplatesTable = {
      id: newId(),
      board_id: board.id,
      name: input.name,
      title: '',
      description: '',
      priority: null,
      tags: '[]',
      assignees: '[]',
      checklist: '[]',
      xattr: '{}',
      created_at: at,
      updated_at: at,
      ...columns(input),
    }
    await insertCardTemplate(tx.q, row)
    await emitEvent(deps, tx, { name: 'card_template.created', boardId: board.id, data: cardTemplateEventData(row, board), actor })
    return cardTemplateView(row)
  })
}

export function updateCardTemplate(deps: Deps, actor: Actor, id: string, input: UpdateCardTemplateInput) {
  return deps.db.tx(async (tx) => {
    const { q } = tx
    const tpl = await visibleCardTemplate(q, actor, id)
    const board = await visibleBoard(q, actor, tpl.board_id)
    if (input.name !== undefined) {
      await lockBoard(q, tpl.board_id)
      const other = await getCardTemplateByName(q, tpl.board_id, input.name)
      if (other && other.id !== id) throw clash(input.name)
    }
    await checkRefs(q, tpl.board_id, input)
    const set = columns(input)
    if (Object.keys(set).length === 0) return cardTemplateView(tpl)
    await updateCardTemplateRow(q, id, { ...set, updated_at: isoAt(deps.clock.now()) })
    const row = (await getCardTemplate(q, id))!
    await emitEvent(deps, tx, { name: 'card_template.updated', boardId: board.id, data: cardTemplateEventData(row, board), actor })
    return cardTemplateView(row)
  })
}

export function deleteCardTemplate(deps: Deps, actor: Actor, id: string): Promise<void> {
  return deps.db.tx(async (tx) => {
    const tpl = await visibleCardTemplate(tx.q, actor, id)
    const board = await visibleBoard(tx.q, actor, tpl.board_id)
    if (!(await deleteCardTemplateRow(tx.q, id))) throw notFound('card_template')
    await emitEvent(deps, tx, { name: 'card_template.deleted', boardId: board.id, data: cardTemplateEventData(tpl, board), actor })
  })
}

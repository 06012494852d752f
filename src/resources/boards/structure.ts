// A board's structure without ids: read from a board (a template's snapshot, a clone's source) and built on a new board
// (a board from a template, a clone). The one way a board's statuses, lists, tags, custom fields and cards are copied.
import type { Actor } from '../../access/roles.js'
import type { Q, Tx } from '../../db/database.js'
import type { BoardStatusesTable, BoardsTable, ListsTable, TagsTable } from '../../db/types.js'
import type { Deps } from '../../deps.js'
import { HttpError, unprocessable, type ErrorDetail } from '../../errors.js'
import { newId } from '../../ids.js'
import { statusView } from '../board-statuses/present.js'
import { insertStatus, statusesOfBoard } from '../board-statuses/published.js'
import { createCardIn } from '../cards/service.js'
import { listView } from '../lists/present.js'
import { insertList, listsOfBoard } from '../lists/published.js'
import { tagView } from '../tags/present.js'
import { insertTag, tagsOfBoard } from '../tags/published.js'
import { checkFieldSpecs, fieldSpecsOfBoard, fieldsFromSpecs } from '../xattr/service.js'
import { xattrOfCards } from '../xattr/values.js'
import { MAX_STRUCTURE_CARDS, type BoardStructure } from './schema.js'

const fold = (s: string) => s.toLowerCase()

/** A board's structure; with `withCards`, its cards not in the trash too (422 naming `include_cards` past the limit). */
export async function readStructure(q: Q, boardId: string, withCards: boolean): Promise<BoardStructure> {
  const statuses = await statusesOfBoard(q, boardId)
  const statusName = new Map(statuses.map((s) => [s.id, s.name]))
  const lists = await listsOfBoard(q, boardId)
  const tags = await tagsOfBoard(q, boardId)
  const fields = await fieldSpecsOfBoard(q, boardId)
  const structure: BoardStructure = {
    statuses: statuses.map((s) => ({ name: s.name, category: s.category, color: s.color })),
    lists: lists.map((l) => ({ name: l.name, category: l.category, status: l.status_id === null ? null : (statusName.get(l.status_id) ?? null) })),
    tags: tags.map((t) => ({ name: t.name, color: t.color })),
    xattr_fields: fields,
    cards: [],
  }
  if (!withCards) return structure
  const listPos = new Map(lists.map((l, i) => [l.id, i]))
  const cards = (
    await q
      .selectFrom('cards')
      .select(['id', 'board_id', 'list_id', 'title', 'description', 'priority', 'position'])
      .where('board_id', '=', boardId)
      .where('trashed', '=', 0)
      .orderBy('position')
      .orderBy('id')
      .limit(MAX_STRUCTURE_CARDS + 1)
      .execute()
  ).sort((a, b) => listPos.get(a.list_id)! - listPos.get(b.list_id)!)
  if (cards.length > MAX_STRUCTURE_CARDS)
    throw unprocessable('The request body is not valid.', [
      { path: 'include_cards', message: `A template holds at most ${MAX_STRUCTURE_CARDS} cards; the board has more.` },
    ])
  const tagName = new Map(tags.map((t) => [t.id, t.name]))
  const cardTags = cards.length
    ? await q
        .selectFrom('card_tags')
        .select(['card_id', 'tag_id'])
        .where(
          'card_id',
          'in',
          cards.map((c) => c.id),
        )
        .execute()
    : []
  const values = await xattrOfCards(q, cards)
  // Values as a create takes them: options by name; computed fields and users (the new board's members differ) left out.
  const byKey = new Map(fields.map((f) => [f.key, f]))
  const options = await q
    .selectFrom('xattr_options')
    .innerJoin('xattr_fields', 'xattr_fields.id', 'xattr_options.field_id')
    .select(['xattr_options.id', 'xattr_options.name'])
    .where('xattr_fields.board_id', '=', boardId)
    .execute()
  const names = new Map(options.map((o) => [o.id, o.name]))
  const optionName = (_key: string, id: unknown) => names.get(String(id))
  structure.cards = cards.map((c) => {
    const xattr: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(values.get(c.id) ?? {})) {
      const f = byKey.get(key)
      if (!f || f.type === 'rollup' || f.type === 'formula' || f.type === 'user') continue
      if (f.type === 'select') xattr[key] = optionName(key, value) ?? null
      else if (f.type === 'multi_select') xattr[key] = (value as unknown[]).map((v) => optionName(key, v)).filter((v) => v !== undefined)
      else xattr[key] = value
    }
    return {
      title: c.title,
      description: c.description,
      priority: c.priority,
      list: lists.find((l) => l.id === c.list_id)!.name,
      tags: cardTags.filter((t) => t.card_id === c.id).map((t) => tagName.get(t.tag_id)!),
      xattr,
    }
  })
  return structure
}

/** Problems of a structure given as it is (names that clash or point nowhere), each under `path`. */
export function checkStructure(s: BoardStructure, path: string): ErrorDetail[] {
  const details: ErrorDetail[] = []
  const unique = (names: string[], at: string) => {
    const seen = new Set<string>()
    names.forEach((n, i) => {
      if (seen.has(fold(n))) details.push({ path: `${path}.${at}.${i}.name`, message: `"${n}" comes twice (names are unique, case-insensitively).` })
      seen.add(fold(n))
    })
  }
  unique(
    s.statuses.map((x) => x.name),
    'statuses',
  )
  unique(
    s.tags.map((x) => x.name),
    'tags',
  )
  const statuses = new Set(s.statuses.map((x) => fold(x.name)))
  s.lists.forEach((l, i) => {
    if (l.status != null && !statuses.has(fold(l.status))) details.push({ path: `${path}.lists.${i}.status`, message: `No status named "${l.status}".` })
  })
  checkFieldSpecs(s.xattr_fields, details, `${path}.xattr_fields`)
  const lists = new Set(s.lists.map((l) => l.name))
  const tags = new Set(s.tags.map((t) => fold(t.name)))
  const keys = new Map(s.xattr_fields.map((f) => [f.key, f.type]))
  s.cards.forEach((c, i) => {
    if (!lists.has(c.list)) details.push({ path: `${path}.cards.${i}.list`, message: `No list named "${c.list}".` })
    c.tags?.forEach((t, j) => {
      if (!tags.has(fold(t))) details.push({ path: `${path}.cards.${i}.tags.${j}`, message: `No tag named "${t}".` })
    })
    for (const key of Object.keys(c.xattr ?? {})) {
      const type = keys.get(key)
      if (!type || type === 'rollup' || type === 'formula')
        details.push({ path: `${path}.cards.${i}.xattr.${key.slice(0, 80)}`, message: 'No settable custom field with this key above.' })
    }
  })
  return details
}

/**
 * Builds a structure on a new board, every id new: statuses (one per list when it has none), lists bound to them, tags,
 * custom fields, then the cards with their values (made as POST /v1/cards makes them, with their events). 422 naming
 * `path.<...>` for what does not fit.
 */
export async function buildStructure(deps: Deps, tx: Tx, actor: Actor, board: BoardsTable, s: BoardStructure, at: string, path = 'content') {
  const { q } = tx
  const details = checkStructure(s, path)
  if (details.length) throw unprocessable('The request body is not valid.', details)
  const status = (name: string, category: BoardStatusesTable['category'], color: string | null, i: number): BoardStatusesTable => ({
    id: newId(),
    board_id: board.id,
    name,
    category,
    color,
    position: i + 1,
    created_at: at,
    updated_at: at,
  })
  const statuses = s.statuses.length
    ? s.statuses.map((x, i) => status(x.name, x.category, x.color ?? null, i))
    : [...new Map(s.lists.map((l) => [fold(l.name), l])).values()].map((l, i) => status(l.name, l.category ?? 'started', null, i))
  const byName = new Map(statuses.map((x) => [fold(x.name), x]))
  const lists = s.lists.map((l, i): ListsTable => {
    const bound = s.statuses.length ? (l.status == null ? undefined : byName.get(fold(l.status))) : byName.get(fold(l.name))
    return {
      id: newId(),
      board_id: board.id,
      name: l.name,
      position: i + 1,
      category: bound?.category ?? l.category ?? 'started',
      created_at: at,
      updated_at: at,
      status_id: bound?.id ?? null,
    }
  })
  const tags = s.tags.map((t): TagsTable => ({ id: newId(), board_id: board.id, name: t.name, color: t.color ?? null, created_at: at, updated_at: at }))
  for (const row of statuses) await insertStatus(q, row)
  for (const row of lists) await insertList(q, row)
  for (const row of tags) await insertTag(q, row)
  const fieldProblems: ErrorDetail[] = []
  const fields = await fieldsFromSpecs(q, board.id, s.xattr_fields, at, fieldProblems, `${path}.xattr_fields`)
  if (fieldProblems.length) throw unprocessable('The request body is not valid.', fieldProblems)
  const listId = new Map(lists.map((l) => [l.name, l.id]))
  const tagId = new Map(tags.map((t) => [fold(t.name), t.id]))
  for (const [i, c] of s.cards.entries()) {
    try {
      await createCardIn(deps, tx, actor, {
        board: board.id,
        title: c.title,
        description: c.description,
        priority: c.priority,
        list: listId.get(c.list)!,
        tags: c.tags?.map((t) => tagId.get(fold(t))!),
        xattr: c.xattr && Object.keys(c.xattr).length ? c.xattr : undefined,
      })
    } catch (err) {
      // A value that does not fit its field: named where the template holds it.
      if (err instanceof HttpError && err.status === 422 && err.details)
        throw unprocessable(
          err.message,
          err.details.map((d) => ({ ...d, path: `${path}.cards.${i}.${d.path}` })),
        )
      throw err
    }
  }
  return { lists: lists.map(listView), tags: tags.map(tagView), xattr_fields: fields, statuses: statuses.map(statusView) }
}

// A card's parent: the one rule for checking and writing it, which the cards service (card create, PATCH, the bulk
// routes) and this family's routes share. The parent lives in `cards.parent_id` (written by the cards service with
// the card's other columns) and as a parent_of link from the parent to the child, written here; both change together.
// Parent chains never cycle: the check walks the new parent's ancestors (one bounded recursive query) after taking the
// parents' lock (serialiseChecks), so two changes at once cannot close a cycle between them.
import { type Actor, creatorId } from '../../access/roles.js'
import { seesBoard } from '../../access/visibility.js'
import type { Q, Tx } from '../../db/database.js'
import { serialiseChecks } from '../../db/dialect.js'
import type { CardsTable, EntityLinksTable } from '../../db/types.js'
import type { Deps } from '../../deps.js'
import { type HttpError, invalidField } from '../../errors.js'
import { emitEvent, emitEvents, type NewEvent } from '../../events/emit.js'
import { newId } from '../../ids.js'
import { getBoards } from '../boards/published.js'
import { cardEventDatas, cardViews } from '../cards/present.js'
import { getCard } from '../cards/published.js'
import { linkEventData } from './present.js'
import {
  ancestorsOf,
  cardsBrief,
  childrenOf,
  clearParent,
  deleteLinkRow,
  deleteLinkRows,
  insertLink,
  insertLinks,
  linksOfCards,
  parentLinkOf,
  parentLinksOf,
} from './store.js'

/** The advisory lock key of the parent chains' cycle check (any fixed number; 'pare'). */
const PARENT_LOCK = 0x70617265
/** The deepest a parent chain may be. */
export const MAX_PARENT_DEPTH = 1_000

/**
 * The card a change names as `child`'s parent (`child` undefined: a card being created), checked: a card the actor
 * sees, not the card itself, and not one of its descendants (the message names the cycle by keys). A 422 naming `path`.
 */
export async function checkParent(
  q: Q,
  actor: Actor,
  child: Pick<CardsTable, 'id' | 'key'> | undefined,
  parentId: string,
  path = 'parent',
): Promise<CardsTable> {
  const parent = await getCard(q, parentId)
  if (!parent || !(await seesBoard(q, actor, parent.board_id))) throw invalidField(path, 'No such card.')
  if (!child) return parent
  if (parent.id === child.id) throw invalidField(path, 'A card cannot be its own parent.')
  await serialiseChecks(q, PARENT_LOCK)
  const up = await ancestorsOf(q, parent.id, MAX_PARENT_DEPTH)
  const at = up.findIndex((a) => a.id === child.id)
  if (at >= 0) {
    const cycle = [...up.slice(0, at + 1).reverse(), { key: child.key }].map((c) => c.key).join(' → ')
    throw invalidField(path, `This parent would make a cycle: ${cycle} (each is the parent of the next).`)
  }
  if (up.length > MAX_PARENT_DEPTH) throw invalidField(path, `Parent chains may be at most ${MAX_PARENT_DEPTH} cards deep.`)
  return parent
}

/**
 * checkParent for many cards given one parent (a bulk change), the parent read and its ancestors walked once: returns
 * each card refused, with the error checkParent would have thrown for it alone.
 */
export async function checkParentOfMany(
  q: Q,
  actor: Actor,
  children: readonly Pick<CardsTable, 'id' | 'key'>[],
  parentId: string,
  path = 'parent',
): Promise<Map<string, HttpError>> {
  const refused = new Map<string, HttpError>()
  if (children.length === 0) return refused
  const parent = await getCard(q, parentId)
  if (!parent || !(await seesBoard(q, actor, parent.board_id))) {
    for (const child of children) refused.set(child.id, invalidField(path, 'No such card.'))
    return refused
  }
  const others = children.filter((c) => c.id !== parent.id)
  if (others.length < children.length) refused.set(parent.id, invalidField(path, 'A card cannot be its own parent.'))
  if (others.length === 0) return refused
  await serialiseChecks(q, PARENT_LOCK)
  const up = await ancestorsOf(q, parent.id, MAX_PARENT_DEPTH)
  const depthOf = new Map(up.map((a, i) => [a.id, i]))
  for (const child of others) {
    const at = depthOf.get(child.id)
    if (at !== undefined) {
      const cycle = [...up.slice(0, at + 1).reverse(), { key: child.key }].map((c) => c.key).join(' → ')
      refused.set(child.id, invalidField(path, `This parent would make a cycle: ${cycle} (each is the parent of the next).`))
    } else if (up.length > MAX_PARENT_DEPTH) refused.set(child.id, invalidField(path, `Parent chains may be at most ${MAX_PARENT_DEPTH} cards deep.`))
  }
  return refused
}

/** What a link event says of its source card. */
export type SourceBrief = { id: string; key: string; title: string; board_id: string }

/**
 * writeParentLink for many cards at once (a bulk change; the caller writes their `parent_id`): the old links removed in
 * one statement and the new ones made in one, and each card's link events (entity_link.deleted, then
 * entity_link.created) returned for the caller to write after its card.updated. `seen` gives a source card as the
 * card's own single change would have seen it (one changed earlier in the same request), else it is read.
 */
export async function writeParentLinks(
  deps: Deps,
  tx: Tx,
  actor: Actor,
  changes: readonly { child: string; from: string | null; to: string | null }[],
  at: string,
  seen?: (source: string, child: string) => SourceBrief | undefined,
): Promise<Map<string, NewEvent[]>> {
  const { q } = tx
  const events = new Map<string, NewEvent[]>()
  const moving = changes.filter((c) => c.from !== c.to)
  if (moving.length === 0) return events
  const old = new Map(
    (
      await parentLinksOf(
        q,
        moving.map((c) => c.child),
      )
    ).map((l) => [l.target_card_id!, l]),
  )
  const deleted = new Set(
    await deleteLinkRows(
      q,
      [...old.values()].map((l) => l.id),
    ),
  )
  const made = new Map<string, EntityLinksTable>()
  for (const c of moving) if (c.to !== null) made.set(c.child, parentLinkRow(actor, c.child, c.to, at))
  await insertLinks(q, [...made.values()])
  const links = [...[...old.values()].filter((l) => deleted.has(l.id)), ...made.values()]
  const briefs = new Map(
    (
      await cardsBrief(
        q,
        links.map((l) => l.source_card_id),
      )
    ).map((b) => [b.id, b]),
  )
  const seenSources = moving.flatMap((c) =>
    [c.from, c.to].flatMap((s) => {
      const brief = s === null ? undefined : seen?.(s, c.child)
      return brief ? [brief] : []
    }),
  )
  const boards = new Map((await getBoards(q, [...new Set([...briefs.values(), ...seenSources].map((b) => b.board_id))])).map((b) => [b.id, b.name]))
  const announced = (name: 'entity_link.created' | 'entity_link.deleted', row: EntityLinksTable, child: string): NewEvent[] => {
    const source = seen?.(row.source_card_id, child) ?? briefs.get(row.source_card_id)
    if (!source) return []
    const board = { id: source.board_id, name: boards.get(source.board_id) ?? null }
    return [{ name, boardId: source.board_id, data: linkEventData(deps.config, row, source, board), actor }]
  }
  for (const c of moving) {
    const gone = old.get(c.child)
    const row = made.get(c.child)
    events.set(c.child, [
      ...(gone && deleted.has(gone.id) ? announced('entity_link.deleted', gone, c.child) : []),
      ...(row ? announced('entity_link.created', row, c.child) : []),
    ])
  }
  return events
}

/** Emits entity_link.created or entity_link.deleted for a link, on its source card's board. */
export async function announceLink(deps: Deps, tx: Tx, actor: Actor, name: 'entity_link.created' | 'entity_link.deleted', row: EntityLinksTable) {
  const [source] = await cardsBrief(tx.q, [row.source_card_id])
  if (!source) return
  const board = (await getBoards(tx.q, [source.board_id]))[0]
  await emitEvent(deps, tx, {
    name,
    boardId: source.board_id,
    data: linkEventData(deps.config, row, source, { id: source.board_id, name: board?.name ?? null }),
    actor,
  })
}

/** The `parent_of` link row of a child card under `parentId`, made by `actor`. */
const parentLinkRow = (actor: Actor, childId: string, parentId: string, at: string): EntityLinksTable => ({
  id: newId(),
  kind: 'parent_of',
  source_card_id: parentId,
  target_type: 'card',
  target_card_id: childId,
  target_note_id: null,
  target_milestone_id: null,
  url: null,
  title: null,
  created_by: creatorId(actor),
  created_at: at,
})

/**
 * The parent_of links of a change of `child`'s parent from `from` to `to` (either may be null): the old link removed
 * and the new one made, each with its event. The caller writes `cards.parent_id` in the same transaction.
 */
export async function writeParentLink(deps: Deps, tx: Tx, actor: Actor, childId: string, from: string | null, to: string | null, at: string): Promise<void> {
  if (from === to) return
  const { q } = tx
  const old = await parentLinkOf(q, childId)
  if (old && (await deleteLinkRow(q, old.id))) await announceLink(deps, tx, actor, 'entity_link.deleted', old)
  if (to === null) return
  const row = parentLinkRow(actor, childId, to, at)
  await insertLink(q, row)
  await announceLink(deps, tx, actor, 'entity_link.created', row)
}

/**
 * Before cards are deleted for good: entity_link.deleted for each link from or to them (the rows go with them), once
 * each, and their subtasks (those not deleted with them) taken off them, each with card.updated naming `parent`.
 */
export async function detachLinksOfCardsGone(deps: Deps, tx: Tx, actor: Actor, cardIds: readonly string[], at: string): Promise<void> {
  const { q } = tx
  // entity_link.deleted for each link from or to them, the source cards and their boards read once, written together.
  const links = await linksOfCards(q, cardIds)
  if (links.length) {
    const sources = new Map((await cardsBrief(q, [...new Set(links.map((l) => l.source_card_id))])).map((b) => [b.id, b]))
    const boards = new Map((await getBoards(q, [...new Set([...sources.values()].map((b) => b.board_id))])).map((b) => [b.id, b.name]))
    const events = links.flatMap((link): NewEvent[] => {
      const source = sources.get(link.source_card_id)
      if (!source) return []
      const board = { id: source.board_id, name: boards.get(source.board_id) ?? null }
      return [{ name: 'entity_link.deleted', boardId: source.board_id, data: linkEventData(deps.config, link, source, board), actor }]
    })
    if (events.length) await emitEvents(deps, tx, events)
  }
  const gone = new Set(cardIds)
  const children = (await childrenOf(q, cardIds)).filter((c) => !gone.has(c.id))
  if (children.length === 0) return
  await clearParent(
    q,
    children.map((c) => c.id),
    at,
  )
  const views = await cardViews(
    q,
    children.map((c) => ({ ...c, parent_id: null, updated_at: at })),
  )
  const data = await cardEventDatas(q, deps.config, views)
  await emitEvents(
    deps,
    tx,
    data.map((card): NewEvent => ({ name: 'card.updated', boardId: card.board.id, data: { ...card, changes: ['parent'] }, actor })),
  )
}

// Entity links from a card to a card, a note, a milestone or a URL. Whoever sees the source card makes one (and must see
// a card or note target too: 404 otherwise); whoever sees either card reads and removes it. A parent_of link is a
// card's parent: it is made and removed through the card's `parent` (cards service), so both stay in step and the
// change emits card.updated naming `parent` beside the link's own event.
import { type Actor, creatorId } from '../../access/roles.js'
import { boardsSeenAmong, visibleOnBoard } from '../../access/visibility.js'
import { isoAt } from '../../clock.js'
import type { Q } from '../../db/database.js'
import type { EntityLinksTable } from '../../db/types.js'
import type { Deps } from '../../deps.js'
import { conflict, invalidField, notFound } from '../../errors.js'
import { newId } from '../../ids.js'
import { listPage, parseExpand, type ListParams } from '../../query/list-page.js'
import { getCard } from '../cards/published.js'
import { updateCardIn } from '../cards/service.js'
import { dependencyCards } from '../dependencies/present.js'
import { announceLink, checkParent } from './parents.js'
import { linkViews } from './present.js'
import { ENTITY_LINK_LIST } from './query.js'
import type { CreateEntityLinkInput, EntityLinkView, UpdateEntityLinkInput } from './schema.js'
import { milestoneTarget, noteTarget } from './targets.js'
import { cardsBrief, deleteLinkRow, findLink, getLink, insertLink, parentLinkOf, updateLinkRow, visibleLinksQuery } from './store.js'

const visibleCard = async (q: Q, actor: Actor, id: string) => visibleOnBoard(q, actor, await getCard(q, id), 'card')

/** A link whose source card, or whose target card, is on a board the actor sees; 404 otherwise. */
async function visibleLink(q: Q, actor: Actor, id: string): Promise<EntityLinksTable> {
  const row = await getLink(q, id)
  if (!row) throw notFound('entity link')
  const boards = (await cardsBrief(q, [row.source_card_id, ...(row.target_card_id ? [row.target_card_id] : [])])).map((c) => c.board_id)
  if (actor.run ? !boards.includes(actor.run.board) : (await boardsSeenAmong(q, actor.user, boards)).size === 0) throw notFound('entity link')
  return row
}

/** `expand=cards`: the source card and a card target as `{ id, key, title, completed }`, null for one the caller does not see. */
async function withCards(q: Q, actor: Actor, views: EntityLinkView[], expand: ReadonlySet<string>) {
  if (!expand.has('cards')) return views
  const cardTarget = (v: EntityLinkView) => (v.target.type === 'card' && v.target.id ? v.target.id : undefined)
  const cards = await dependencyCards(
    q,
    views.flatMap((v) => [v.source.id, cardTarget(v) ?? []].flat()),
    actor.user,
  )
  return views.map((v) => {
    const target = cardTarget(v)
    return { ...v, expand: { source: cards.get(v.source.id) ?? null, target: target ? (cards.get(target) ?? null) : null } }
  })
}

const viewOf = async (q: Q, row: EntityLinksTable): Promise<EntityLinkView> => (await linkViews(q, [row]))[0]

/** The links the caller sees (with `card`, those from or to that card; 404 when the card is not visible). */
export async function listLinks(deps: Deps, actor: Actor, params: ListParams & { card?: string }) {
  const { q } = deps.db
  if (params.card) await visibleCard(q, actor, params.card)
  return listPage(deps.db, visibleLinksQuery(q, actor.user, params.card), ENTITY_LINK_LIST, params, async (rows: EntityLinksTable[], expand) =>
    withCards(q, actor, await linkViews(q, rows), expand),
  )
}

export async function getLinkFor(deps: Deps, actor: Actor, id: string, expand?: string) {
  const { q } = deps.db
  return (await withCards(q, actor, [await viewOf(q, await visibleLink(q, actor, id))], parseExpand(expand, ENTITY_LINK_LIST.expand)))[0]
}

export function createLink(deps: Deps, actor: Actor, input: CreateEntityLinkInput): Promise<EntityLinkView> {
  return deps.db.tx(async (tx) => {
    const { q } = tx
    const source = await visibleCard(q, actor, input.source.id)
    const { target } = input
    let targetId: string
    if (target.type === 'card') {
      const card = await visibleCard(q, actor, target.id)
      if (card.id === source.id) throw invalidField('target.id', 'A card cannot link to itself.')
      if (input.kind === 'parent_of') {
        if (card.parent_id === source.id) throw conflict(`${source.key} is already the parent of ${card.key}.`)
        if (card.parent_id !== null) {
          const [parent] = await cardsBrief(q, [card.parent_id])
          throw conflict(`${card.key} already has a parent (${parent?.key ?? card.parent_id}); change its parent or delete that link first.`)
        }
        await checkParent(q, actor, card, source.id, 'target.id')
        await updateCardIn(deps, tx, actor, card.id, { parent: source.id })
        return viewOf(q, (await parentLinkOf(q, card.id))!)
      }
      // relates_to is the same link either way round.
      if (input.kind === 'relates_to' && (await findLink(q, 'relates_to', card.id, 'card', source.id)))
        throw conflict(`${source.key} and ${card.key} are already linked as relates_to.`)
      targetId = card.id
    } else if (input.kind === 'parent_of') {
      throw invalidField('target.type', 'A parent_of link goes from a card to a card.')
    } else if (target.type === 'note') {
      await noteTarget(q, actor, target.id)
      targetId = target.id
    } else if (target.type === 'milestone') {
      await milestoneTarget(q, actor, target.id)
      targetId = target.id
    } else {
      targetId = target.url
    }
    if (await findLink(q, input.kind, source.id, target.type, targetId)) throw conflict(`The card already has this ${input.kind} link.`)
    const row: EntityLinksTable = {
      id: newId(),
      kind: input.kind,
      source_card_id: source.id,
      target_type: target.type,
      target_card_id: target.type === 'card' ? targetId : null,
      target_note_id: target.type === 'note' ? targetId : null,
      target_milestone_id: target.type === 'milestone' ? targetId : null,
      url: target.type === 'url' ? targetId : null,
      title: target.title ?? null,
      created_by: creatorId(actor),
      created_at: isoAt(deps.clock.now()),
    }
    await insertLink(q, row)
    await announceLink(deps, tx, actor, 'entity_link.created', row)
    return viewOf(q, row)
  })
}

export function updateLink(deps: Deps, actor: Actor, id: string, input: UpdateEntityLinkInput): Promise<EntityLinkView> {
  return deps.db.tx(async ({ q }) => {
    const row = await visibleLink(q, actor, id)
    if (input.title !== undefined) await updateLinkRow(q, id, { title: input.title })
    return viewOf(q, { ...row, title: input.title === undefined ? row.title : input.title })
  })
}

export function deleteLink(deps: Deps, actor: Actor, id: string): Promise<void> {
  return deps.db.tx(async (tx) => {
    const row = await visibleLink(tx.q, actor, id)
    // A parent_of link is the child's parent: removing it is a change of the card (card.updated and the link's event).
    if (row.kind === 'parent_of' && row.target_card_id) {
      await updateCardIn(deps, tx, actor, row.target_card_id, { parent: null })
      return
    }
    if (!(await deleteLinkRow(tx.q, id))) throw notFound('entity link')
    await announceLink(deps, tx, actor, 'entity_link.deleted', row)
  })
}

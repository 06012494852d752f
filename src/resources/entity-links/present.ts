// Entity links in API shape (a page's creators in one query), the links of a page of cards, and the `data` of link events.
import { publicBaseUrl, type Config } from '../../config.js'
import type { Q } from '../../db/database.js'
import type { EntityLinksTable } from '../../db/types.js'
import type { EventData } from '../../events/fields.js'
import type { UserRef } from '../../http/schemas.js'
import { userRefsOf } from '../users/present.js'
import type { EntityLinkView } from './schema.js'
import { linksOfCards } from './store.js'

/** The target as the API shows it: its id (or URL) and its label when it has one. */
export function targetOf(r: EntityLinksTable): EntityLinkView['target'] {
  const id = r.target_card_id ?? r.target_note_id ?? r.target_milestone_id
  return {
    type: r.target_type,
    ...(r.target_type === 'url' ? { url: r.url ?? '' } : { id: id ?? '' }),
    ...(r.title !== null ? { title: r.title } : {}),
  }
}

export const linkView = (r: EntityLinksTable, ref: (id: string | null) => UserRef | null): EntityLinkView => ({
  id: r.id,
  kind: r.kind,
  source: { type: 'card', id: r.source_card_id },
  target: targetOf(r),
  created_by: ref(r.created_by),
  created: r.created_at,
})

export async function linkViews(q: Q, rows: readonly EntityLinksTable[]): Promise<EntityLinkView[]> {
  const ref = await userRefsOf(
    q,
    rows.map((r) => r.created_by),
  )
  return rows.map((r) => linkView(r, ref))
}

/** `expand=links` of a page of cards: the links from or to each card, oldest first, in two queries. */
export async function linksByCard(q: Q, cardIds: readonly string[]): Promise<Map<string, EntityLinkView[]>> {
  const rows = await linksOfCards(q, cardIds)
  const views = await linkViews(q, rows)
  const out = new Map<string, EntityLinkView[]>(cardIds.map((id) => [id, []]))
  rows.forEach((r, i) => {
    out.get(r.source_card_id)?.push(views[i])
    if (r.target_card_id !== null && r.target_card_id !== r.source_card_id) out.get(r.target_card_id)?.push(views[i])
  })
  return out
}

/** The link to a task, as task events give it (cards/present.ts imports this file, so it is spelt here too). */
const cardUrl = (config: Config, id: string): string => `${publicBaseUrl(config)}/v1/cards/${id}`

type Brief = { id: string; key: string; title: string }

/** The `data` of entity link events: the source task with its key, title and link, the target, and the source's board. */
export const linkEventData = (
  config: Config,
  r: EntityLinksTable,
  source: Brief,
  board: { id: string; name: string | null },
): EventData<'entity_link.created'> => ({
  id: r.id,
  kind: r.kind,
  source: { id: source.id, key: source.key, title: source.title, url: cardUrl(config, source.id) },
  target: {
    type: r.target_type,
    id: r.target_card_id ?? r.target_note_id ?? r.target_milestone_id,
    url: r.url,
    title: r.title,
  },
  board,
})

// Dependencies in API shape, the cards they show (for a whole page at once), and the `data` of dependency events.
import { boardsSeenAmong, type Viewer } from '../../access/visibility.js'
import { publicBaseUrl, type Config } from '../../config.js'
import type { Q } from '../../db/database.js'
import type { CardDependenciesTable } from '../../db/types.js'
import type { EventData } from '../../events/fields.js'
import { userRefsOf } from '../users/present.js'
import type { DependencyCard, DependencyView } from './schema.js'
import { cardsBrief, dependenciesOfCards } from './store.js'

export async function dependencyViews(q: Q, rows: readonly CardDependenciesTable[]): Promise<DependencyView[]> {
  const ref = await userRefsOf(
    q,
    rows.map((r) => r.created_by),
  )
  return rows.map((r) => ({ id: r.id, blocker: r.blocker_id, blocked: r.blocked_id, created_by: ref(r.created_by), created: r.created_at }))
}

/** The cards of these ids as dependencies show them, those on boards the viewer does not see left out. */
export async function dependencyCards(q: Q, ids: readonly string[], viewer: Viewer | undefined): Promise<Map<string, DependencyCard>> {
  const rows = await cardsBrief(q, ids)
  const seen = viewer
    ? await boardsSeenAmong(
        q,
        viewer,
        rows.map((r) => r.board_id),
      )
    : undefined
  return new Map(rows.filter((r) => !seen || seen.has(r.board_id)).map((r) => [r.id, { id: r.id, key: r.key, title: r.title, completed: r.completed === 1 }]))
}

/** `expand=dependencies` of a page of cards: for each, the cards blocking it and those it blocks, in two queries. */
export async function dependenciesByCard(q: Q, cardIds: readonly string[], viewer: Viewer | undefined) {
  const rows = await dependenciesOfCards(q, cardIds)
  const cards = await dependencyCards(
    q,
    rows.flatMap((r) => [r.blocker_id, r.blocked_id]),
    viewer,
  )
  const out = new Map<string, { blocked_by: DependencyCard[]; blocking: DependencyCard[] }>(cardIds.map((id) => [id, { blocked_by: [], blocking: [] }]))
  for (const r of rows) {
    const blocker = cards.get(r.blocker_id)
    const blocked = cards.get(r.blocked_id)
    if (blocker) out.get(r.blocked_id)?.blocked_by.push(blocker)
    if (blocked) out.get(r.blocker_id)?.blocking.push(blocked)
  }
  return out
}

/** The link to a task, as task events give it (cards/present.ts imports this file, so it is spelt here too). */
const cardUrl = (config: Config, id: string): string => `${publicBaseUrl(config)}/v1/cards/${id}`

type Brief = { id: string; key: string; title: string; board_id: string }

/** The `data` of dependency events: both cards with their keys, titles and links, and the blocked card's board. */
export const dependencyEventData = (
  config: Config,
  row: CardDependenciesTable,
  blocker: Brief,
  blocked: Brief,
  board: { id: string; name: string | null },
): EventData<'dependency.created'> => ({
  id: row.id,
  blocker: { id: blocker.id, key: blocker.key, title: blocker.title, url: cardUrl(config, blocker.id) },
  blocked: { id: blocked.id, key: blocked.key, title: blocked.title, url: cardUrl(config, blocked.id) },
  board,
})

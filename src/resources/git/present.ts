// Git records in API shape: connections with their hook URL (never the secret), repositories with their rules, and
// resources with the cards they link, batch-loaded for a page.
import { isAdminRole } from '../../access/roles.js'
import { visibleBoardIds, type Viewer } from '../../access/visibility.js'
import type { Q } from '../../db/database.js'
import { fromJsonColumn } from '../../db/json.js'
import type { GitConnectionsTable, GitRepositoriesTable, GitResourcesTable } from '../../db/types.js'
import { creatorsOf } from '../users/present.js'
import { type GitConnectionView, type GitRepositoryView, type GitResourceView, GitRules } from './schema.js'
import { cardsOfResources, resourcesOfCards } from './store.js'

/** Where a connection's host sends its hooks. */
export const hookUrl = (baseUrl: string, id: string): string => `${baseUrl}/v1/git/connections/${id}/hooks`

export async function connectionViews(q: Q, baseUrl: string, rows: readonly GitConnectionsTable[]): Promise<GitConnectionView[]> {
  const creator = await creatorsOf(q, rows)
  return rows.map((r) => ({
    id: r.id,
    provider: r.provider,
    name: r.name,
    hook_url: hookUrl(baseUrl, r.id),
    created_by: creator(r.created_by),
    created: r.created_at,
    updated: r.updated_at,
  }))
}

export const rulesOf = (r: GitRepositoriesTable) => fromJsonColumn(GitRules, r.rules)

export const repositoryView = (r: GitRepositoriesTable): GitRepositoryView => ({
  id: r.id,
  connection: r.connection_id,
  full_name: r.full_name,
  url: r.url,
  board: r.board_id,
  rules: rulesOf(r),
  created: r.created_at,
  updated: r.updated_at,
})

const resourceView = (r: GitResourcesTable, cards: string[]): GitResourceView => ({
  id: r.id,
  repository: r.repository_id,
  kind: r.kind,
  ref: r.ref,
  title: r.title,
  url: r.url,
  state: r.state,
  author: r.author,
  cards,
  created: r.created_at,
  updated: r.updated_at,
})

/**
 * Resources with the cards they link: for a viewer who does not see every board (`boards` set), only the cards of the
 * boards they see, so another board's card ids never show.
 */
export async function resourceViews(q: Q, rows: readonly GitResourcesTable[], boards?: ReadonlySet<string>): Promise<GitResourceView[]> {
  const cards = await cardsOfResources(
    q,
    rows.map((r) => r.id),
    boards,
  )
  return rows.map((r) => resourceView(r, cards.get(r.id) ?? []))
}

/**
 * The boards whose cards a viewer may see in a resource's or pipeline's `cards`: undefined (all) for owners and admins
 * and when there is no viewer (an event), else the boards they see.
 */
export async function cardBoardsSeenBy(q: Q, viewer: Viewer | undefined): Promise<ReadonlySet<string> | undefined> {
  if (!viewer || isAdminRole(viewer.role)) return undefined
  return new Set((await visibleBoardIds(q, viewer).execute()).map((r) => r.board_id))
}

/**
 * `expand=git` on cards: each card's resources, newest first (the card is seen, so its resources are); `boards`: those
 * whose cards their `cards` may name (cardBoardsSeenBy).
 */
export async function resourcesByCard(q: Q, cardIds: readonly string[], boards: ReadonlySet<string> | undefined): Promise<Map<string, GitResourceView[]>> {
  const linked = await resourcesOfCards(q, cardIds)
  const views = new Map((await resourceViews(q, [...new Map(linked.map((l) => [l.resource.id, l.resource])).values()], boards)).map((v) => [v.id, v]))
  const out = new Map<string, GitResourceView[]>()
  for (const { card_id, resource } of linked) {
    const list = out.get(card_id)
    const view = views.get(resource.id)!
    if (list) list.push(view)
    else out.set(card_id, [view])
  }
  return out
}

// The events of dependencies, for their own routes and for a card deleted for good (whose dependencies go with it).
import type { Actor } from '../../access/roles.js'
import type { Tx } from '../../db/database.js'
import type { CardDependenciesTable } from '../../db/types.js'
import type { Deps } from '../../deps.js'
import { emitEvent, emitEvents, type NewEvent } from '../../events/emit.js'
import { getBoards } from '../boards/published.js'
import { dependencyEventData } from './present.js'
import { cardsBrief, dependenciesOfCards } from './store.js'

/** Emits dependency.created or dependency.deleted, on the blocked card's board. */
export async function announce(deps: Deps, tx: Tx, actor: Actor, name: 'dependency.created' | 'dependency.deleted', row: CardDependenciesTable) {
  const cards = new Map((await cardsBrief(tx.q, [row.blocker_id, row.blocked_id])).map((c) => [c.id, c]))
  const blocker = cards.get(row.blocker_id)
  const blocked = cards.get(row.blocked_id)
  if (!blocker || !blocked) return
  const board = (await getBoards(tx.q, [blocked.board_id]))[0]
  const data = dependencyEventData(deps.config, row, blocker, blocked, { id: blocked.board_id, name: board?.name ?? null })
  await emitEvent(deps, tx, { name, boardId: blocked.board_id, data, actor })
}

/**
 * Before cards are deleted for good: dependency.deleted for each of their dependencies (the rows go with them), once
 * each, set-based: the cards and boards they name read once, the events written together.
 */
export async function announceDependenciesOfCardsGone(deps: Deps, tx: Tx, actor: Actor, cardIds: readonly string[]): Promise<void> {
  const rows = await dependenciesOfCards(tx.q, cardIds)
  if (rows.length === 0) return
  const cards = new Map((await cardsBrief(tx.q, [...new Set(rows.flatMap((r) => [r.blocker_id, r.blocked_id]))])).map((c) => [c.id, c]))
  const boards = new Map((await getBoards(tx.q, [...new Set([...cards.values()].map((c) => c.board_id))])).map((b) => [b.id, b.name]))
  const events = rows.flatMap((row): NewEvent[] => {
    const blocker = cards.get(row.blocker_id)
    const blocked = cards.get(row.blocked_id)
    if (!blocker || !blocked) return []
    const board = { id: blocked.board_id, name: boards.get(blocked.board_id) ?? null }
    return [{ name: 'dependency.deleted', boardId: blocked.board_id, data: dependencyEventData(deps.config, row, blocker, blocked, board), actor }]
  })
  if (events.length) await emitEvents(deps, tx, events)
}

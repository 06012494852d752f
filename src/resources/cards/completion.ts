// The one rule that keeps a card's completion and its list's category together, whatever path changes the card.
//
// - A move into a list of category `completed` completes the card; a move out of one into a list of any other category
//   re-opens it; a move between two lists of other categories leaves its completion as it is.
// - Completing a card that is not in a `completed` list moves it to the board's first `completed` list, when the board
//   has one (a board without one keeps the card where it is, completed).
// - Re-opening a card that is in a `completed` list moves it to the board's first `unstarted` list, else its first
//   `started`, else its first `backlog` list (a board with none of these keeps the card where it is, re-opened).
// - A request that names both a list and a completion that contradict each other is refused (422), never half applied.
import type { ListsTable } from '../../db/types.js'
import { invalidField } from '../../errors.js'

type Category = ListsTable['category']

/**
 * What a move from a list of category `from` (none on create) into one of category `to` does to the card's completion:
 * true completes it, false re-opens it, undefined leaves it as it is. A set-based move (a whole list's cards at once)
 * applies it to the rows whose `completed` differs, with `completionColumns`.
 */
export const completionAfterMove = (from: Category | undefined, to: Category): boolean | undefined =>
  to === 'completed' ? true : from === 'completed' ? false : undefined

/** The columns of a card that becomes completed (stamped `at`) or re-opened. */
export const completionColumns = (completed: boolean, at: string): { completed: 0 | 1; completed_at: string | null } =>
  completed ? { completed: 1, completed_at: at } : { completed: 0, completed_at: null }

/**
 * For a set-based move of `cards` from a list of category `from` to one of category `to`: the cards whose completion
 * changes and the columns they take (for one UPDATE of those ids), or undefined when none changes. Those cards' events
 * then name `completed` among card.updated's changes and add card.completed (or card.reopened) after card.moved.
 */
export function completionOfMove(
  cards: readonly { id: string; completed: number }[],
  from: Category,
  to: Category,
  at: string,
): { ids: string[]; completed: boolean; set: ReturnType<typeof completionColumns> } | undefined {
  const completed = completionAfterMove(from, to)
  if (completed === undefined) return undefined
  const ids = cards.filter((c) => (c.completed === 1) !== completed).map((c) => c.id)
  return ids.length === 0 ? undefined : { ids, completed, set: completionColumns(completed, at) }
}

/** Where a re-opened card goes: the first list of the first of these categories the board has. */
const OPEN_CATEGORIES: readonly Category[] = ['unstarted', 'started', 'backlog']

const firstOf = (lists: readonly ListsTable[], category: Category) => lists.find((l) => l.category === category)
const openListOf = (lists: readonly ListsTable[]) => OPEN_CATEGORIES.map((c) => firstOf(lists, c)).find((l) => l !== undefined)

export interface Placement {
  list: ListsTable
  completed: boolean
}

/**
 * The list a card ends in and whether it is completed, after a create (`now` undefined: it starts in the board's first
 * list unless another is named) or a change. `lists`: the lists of the card's board (the target board of a move), in
 * order; `asked`: the list (its row) and the completion the request names, either or both.
 */
export function placeCard(lists: readonly ListsTable[], now: Placement | undefined, asked: { list?: ListsTable; completed?: boolean }): Placement {
  if (asked.list) {
    const to = asked.list.category
    if (asked.completed === undefined) return { list: asked.list, completed: completionAfterMove(now?.list.category, to) ?? now?.completed ?? false }
    if (to === 'completed' && !asked.completed)
      throw invalidField('completed', 'A card in a list of category completed is completed; name a list of another category to re-open it.')
    if (to !== 'completed' && asked.completed && firstOf(lists, 'completed'))
      throw invalidField('completed', "Completing a card moves it to its board's first list of category completed; name that list, or no list.")
    return { list: asked.list, completed: asked.completed }
  }
  const where = now?.list ?? lists[0]
  const completed = asked.completed ?? now?.completed ?? where.category === 'completed'
  if (completed && where.category !== 'completed') return { list: firstOf(lists, 'completed') ?? where, completed }
  if (!completed && where.category === 'completed') return { list: openListOf(lists) ?? where, completed }
  return { list: where, completed }
}

// "Load it if the caller may see it": a token sees only the boards its user is a member of, and what lives on them.
import type { Q } from '../db/database.js'
import { firstOf, fixedQuery } from '../db/sql.js'
import type { BoardsTable } from '../db/types.js'
import { notFound } from '../errors.js'
import type { Actor } from './roles.js'

/** Ids of the boards a user belongs to, as a subquery for visibility. */
export const memberBoardIds = (q: Q, userId: string) =>
  q.selectFrom('board_members').select('board_members.board_id').where('board_members.user_id', '=', userId)

const memberBoard = fixedQuery((q: Q, id: string, userId: string) =>
  q
    .selectFrom('boards')
    .selectAll()
    .where('id', '=', id)
    .where((eb) =>
      eb.exists(
        eb.selectFrom('board_members').select('user_id').whereRef('board_members.board_id', '=', 'boards.id').where('board_members.user_id', '=', userId),
      ),
    ),
)

/** The board if the user is a member of it, in one query. */
export const getMemberBoard = (q: Q, id: string, userId: string): Promise<BoardsTable | undefined> => firstOf(q, memberBoard(q, id, userId))

/** The board if the actor is a member of it; otherwise 404, so other boards' existence never leaks. */
export async function visibleBoard(q: Q, actor: Actor, boardId: string, what = 'board'): Promise<BoardsTable> {
  const board = await getMemberBoard(q, boardId, actor.user.id)
  if (!board) throw notFound(what)
  return board
}

/** A record that lives on a board (list, card, tag, ...), if the actor may see that board; 404 otherwise. */
export async function visibleOnBoard<T extends { board_id: string }>(q: Q, actor: Actor, row: T | undefined, what: string): Promise<T> {
  if (!row) throw notFound(what)
  await visibleBoard(q, actor, row.board_id, what)
  return row
}

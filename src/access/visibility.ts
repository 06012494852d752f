// "Load it if the caller may see it": a token sees only the boards its user is a member of, and what lives on them.
import type { Sql } from '../db/sql.js'
import { fixedQuery, qb } from '../db/sql.js'
import type { BoardsTable } from '../db/types.js'
import { notFound } from '../errors.js'
import type { Actor } from './roles.js'

/** Ids of the boards a user belongs to, as a subquery for visibility. */
export const memberBoardIds = (userId: string) => qb.selectFrom('board_members').select('board_members.board_id').where('board_members.user_id', '=', userId)

const memberBoard = fixedQuery((id: string, userId: string) =>
  qb
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
export const getMemberBoard = (sql: Sql, id: string, userId: string): BoardsTable | undefined => sql.first(memberBoard(id, userId))

/** The board if the actor is a member of it; otherwise 404, so other boards' existence never leaks. */
export function visibleBoard(sql: Sql, actor: Actor, boardId: string, what = 'board'): BoardsTable {
  const board = getMemberBoard(sql, boardId, actor.user.id)
  if (!board) throw notFound(what)
  return board
}

/** A record that lives on a board (list, card, tag, ...), if the actor may see that board; 404 otherwise. */
export function visibleOnBoard<T extends { board_id: string }>(sql: Sql, actor: Actor, row: T | undefined, what: string): T {
  if (!row) throw notFound(what)
  visibleBoard(sql, actor, row.board_id, what)
  return row
}

// Board visibility: a token sees only the boards its user is a member of.
import type { Sql } from '../db/sql.js'
import type { BoardsTable } from '../db/types.js'
import { forbidden, notFound } from '../http/errors.js'
import { getBoard, getMemberBoard } from '../store/boards.js'
import { type Actor, isAdmin } from './context.js'

/** The board if the actor is a member of it; otherwise 404, so other boards' existence never leaks. */
export function visibleBoard(sql: Sql, actor: Actor, boardId: string, what = 'board'): BoardsTable {
  const board = getMemberBoard(sql, boardId, actor.user.id)
  if (!board) throw notFound(what)
  return board
}

/** Membership changes: workspace owners/admins on any board, members with a write token on theirs. */
export function boardForMembershipChange(sql: Sql, actor: Actor, boardId: string): BoardsTable {
  if (isAdmin(actor)) {
    const board = getBoard(sql, boardId)
    if (!board) throw notFound('board')
    return board
  }
  const board = visibleBoard(sql, actor, boardId)
  if (actor.permission === 'read') throw forbidden('This token is read only.')
  return board
}

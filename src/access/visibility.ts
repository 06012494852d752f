// Who sees which board, and "load it if the caller may see it". Owners and admins see every board (also one with no
// members); anyone else the boards they are a member of. A board in the trash, and everything on it, is out of sight
// except through the board routes (get, the list with ?trashed=true, restore, delete).
import type { Q } from '../db/database.js'
import { firstOf, fixedQuery } from '../db/sql.js'
import type { BoardMembersTable, BoardsTable, UsersTable } from '../db/types.js'
import { notFound } from '../errors.js'
import { type Actor, isAdmin, isAdminRole } from './roles.js'

/** Whose sight counts: a request's user, or a subscription's creator. */
export type Viewer = Pick<UsersTable, 'id' | 'role'>

/** Ids of the boards a user is a member of (also ones in the trash), as a subquery. */
export const memberBoardIds = (q: Q, userId: string) =>
  q.selectFrom('board_members').select('board_members.board_id').where('board_members.user_id', '=', userId)

/** Ids of the boards a user sees (none in the trash), as a subquery. */
export const visibleBoardIds = (q: Q, viewer: Viewer) =>
  isAdminRole(viewer.role)
    ? q.selectFrom('boards').select('boards.id as board_id').where('boards.trashed_at', 'is', null)
    : q
        .selectFrom('board_members')
        .innerJoin('boards', 'boards.id', 'board_members.board_id')
        .select('board_members.board_id')
        .where('board_members.user_id', '=', viewer.id)
        .where('boards.trashed_at', 'is', null)

const boardShare = fixedQuery((q: Q, userId: string) =>
  q.selectNoFrom((eb) => [
    eb
      .selectFrom('boards')
      .select((e) => e.fn.countAll<number>().as('n'))
      .where('boards.trashed_at', 'is', null)
      .as('all'),
    eb
      .selectFrom(memberBoardIds(q, userId).as('m'))
      .innerJoin('boards', 'boards.id', 'm.board_id')
      .select((e) => e.fn.countAll<number>().as('n'))
      .where('boards.trashed_at', 'is', null)
      .as('mine'),
  ]),
)

/**
 * Whether the viewer sees at least half of the boards not in the trash, and at least one (owners and admins see them
 * all). A heuristic, by boards rather than cards: such a viewer's cards across boards are likely most of the
 * workspace's, so a page of them is read in its order from a workspace-wide index, where looking their boards up would
 * sort nearly every card for each page. Half of the boards holding few cards costs a longer scan of that index.
 */
export async function seesMostBoards(q: Q, viewer: Viewer): Promise<boolean> {
  if (isAdminRole(viewer.role)) return true
  const share = await firstOf(q, boardShare(q, viewer.id))
  return share !== undefined && Number(share.mine) > 0 && Number(share.mine) * 2 >= Number(share.all)
}

/** A record of one user's own (a timesheet, a billing rate): they see it, and owners and admins see everyone's. */
export const seesUsersRecord = (viewer: Viewer, userId: string): boolean => isAdminRole(viewer.role) || viewer.id === userId

/** The users who see a board: its members, and the workspace's owners and admins (`among`: only these users). */
export const usersSeeingBoard = (q: Q, boardId: string, among?: readonly string[]) =>
  q
    .selectFrom('users')
    .select(['users.id', 'users.name', 'users.email'])
    .$if(among !== undefined, (qb) => qb.where('users.id', 'in', [...among!]))
    .where((eb) =>
      eb.or([
        eb('users.role', 'in', ['owner', 'admin']),
        eb('users.id', 'in', eb.selectFrom('board_members').select('board_members.user_id').where('board_members.board_id', '=', boardId)),
      ]),
    )
    .execute()

/** Which of these boards the viewer sees (none in the trash), in one query. */
export async function boardsSeenAmong(q: Q, viewer: Viewer, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set()
  const rows = await q
    .selectFrom('boards')
    .select('id')
    .where('id', 'in', [...new Set(ids)])
    .where('id', 'in', visibleBoardIds(q, viewer))
    .execute()
  return new Set(rows.map((r) => r.id))
}

/** A board with the caller's role on it (null when not a member). */
export type SeenBoard = BoardsTable & { my_role: BoardMembersTable['role'] | null }

const boardWithRole = fixedQuery((q: Q, id: string, userId: string) =>
  q
    .selectFrom('boards')
    .leftJoin('board_members', (j) => j.onRef('board_members.board_id', '=', 'boards.id').on('board_members.user_id', '=', userId))
    .selectAll('boards')
    .select('board_members.role as my_role')
    .where('boards.id', '=', id),
)

const loadSeen = async (q: Q, actor: Actor, id: string): Promise<SeenBoard | undefined> => {
  if (actor.run && actor.run.board !== id) return undefined
  const board = await firstOf(q, boardWithRole(q, id, actor.user.id))
  // An automation run sees its own board only, as a member of it.
  if (actor.run) return board && { ...board, my_role: 'member' }
  return board && (board.my_role !== null || isAdmin(actor)) ? board : undefined
}

/** The board with the actor's board role if the actor sees it, also in the trash; 404 otherwise, so other boards' existence never leaks. */
export async function boardInSight(q: Q, actor: Actor, id: string, what = 'board'): Promise<SeenBoard> {
  const board = await loadSeen(q, actor, id)
  if (!board) throw notFound(what)
  return board
}

/** The board if the actor sees it and it is not in the trash; 404 otherwise. */
export async function visibleBoard(q: Q, actor: Actor, id: string, what = 'board'): Promise<SeenBoard> {
  const board = await loadSeen(q, actor, id)
  if (!board || board.trashed_at !== null) throw notFound(what)
  return board
}

/** Whether the actor sees the board (not in the trash). */
export const seesBoard = async (q: Q, actor: Actor, id: string): Promise<boolean> => (await loadSeen(q, actor, id))?.trashed_at === null

/** A record that lives on a board (list, card, tag, ...), if the actor sees that board; 404 otherwise. */
export async function visibleOnBoard<T extends { board_id: string }>(q: Q, actor: Actor, row: T | undefined, what: string): Promise<T> {
  if (!row) throw notFound(what)
  await visibleBoard(q, actor, row.board_id, what)
  return row
}

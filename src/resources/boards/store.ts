// Board and membership queries.
import { memberBoardIds, visibleBoardIds, type Viewer } from '../../access/visibility.js'
import type { Q } from '../../db/database.js'
import { lockRows } from '../../db/dialect.js'
import { rowsByIds } from '../../db/sql.js'
import type { BoardMembersTable, BoardsTable } from '../../db/types.js'

export const getBoard = (q: Q, id: string) => q.selectFrom('boards').selectAll().where('id', '=', id).executeTakeFirst()
export const getBoards = (q: Q, ids: readonly string[]) => rowsByIds(q, 'boards', ids)
export const insertBoard = (q: Q, row: BoardsTable) => q.insertInto('boards').values(row).execute()
export const updateBoardRow = (q: Q, id: string, set: Partial<BoardsTable>) => q.updateTable('boards').set(set).where('id', '=', id).execute()
export const deleteBoardRow = (q: Q, id: string) => q.deleteFrom('boards').where('id', '=', id).execute()

/** Puts a board in the trash (who, when, and when it goes for good), or takes it out with null. */
export const setBoardTrashed = (q: Q, id: string, trashed: { at: string; by: string; purgeAt: string } | null) =>
  q
    .updateTable('boards')
    .set({ trashed_at: trashed?.at ?? null, trashed_by: trashed?.by ?? null, purge_at: trashed?.purgeAt ?? null })
    .where('id', '=', id)
    .execute()
/** Boards due to be deleted for good at `at` (but those in `skip`), the longest due first. */
export const boardsDueForPurge = (q: Q, at: string, limit: number, skip: readonly string[]) => {
  const query = q.selectFrom('boards').selectAll().where('purge_at', '<=', at)
  return (skip.length ? query.where('id', 'not in', [...skip]) : query).orderBy('purge_at').orderBy('id').limit(limit).execute()
}

type BoardRole = BoardMembersTable['role']

/** Adds a membership; false when it already existed (also when a concurrent request added it first). */
export const addBoardMember = async (q: Q, boardId: string, userId: string, at: string, role: BoardRole): Promise<boolean> => {
  const [r] = await q
    .insertInto('board_members')
    .values({ board_id: boardId, user_id: userId, created_at: at, role })
    .onConflict((oc) => oc.doNothing())
    .execute()
  return Number(r?.numInsertedOrUpdatedRows ?? 0) > 0
}
/** Removes a membership (the caller holds the board's lock and knows it exists). */
export const removeBoardMember = (q: Q, boardId: string, userId: string) =>
  q.deleteFrom('board_members').where('board_id', '=', boardId).where('user_id', '=', userId).execute()

/** Changes a member's board role (the caller holds the board's lock and knows the membership exists). */
export const setMemberRole = (q: Q, boardId: string, userId: string, role: BoardRole) =>
  q.updateTable('board_members').set({ role }).where('board_id', '=', boardId).where('user_id', '=', userId).execute()
/** How many admins a board has. */
export const countBoardAdmins = async (q: Q, boardId: string): Promise<number> =>
  Number(
    (
      await q
        .selectFrom('board_members')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('board_id', '=', boardId)
        .where('role', '=', 'admin')
        .executeTakeFirstOrThrow()
    ).n,
  )
/** A member of a board as a user row with their board role, if they are one. */
export const getBoardMember = (q: Q, boardId: string, userId: string) =>
  q
    .selectFrom('board_members')
    .innerJoin('users', 'users.id', 'board_members.user_id')
    .selectAll('users')
    .select('board_members.role as board_role')
    .where('board_members.board_id', '=', boardId)
    .where('board_members.user_id', '=', userId)
    .executeTakeFirst()
/** The board roles of these users on one board, in one query. */
export const memberRoles = async (q: Q, boardId: string, userIds: readonly string[]): Promise<Map<string, BoardRole>> =>
  new Map(
    userIds.length === 0
      ? []
      : (
          await q
            .selectFrom('board_members')
            .select(['user_id', 'role'])
            .where('board_id', '=', boardId)
            .where('user_id', 'in', [...userIds])
            .execute()
        ).map((r) => [r.user_id, r.role]),
  )

/**
 * Base queries of the list routes (filters and paging are added on top): the boards in the trash or out of it, of which
 * `memberId` is a member unless undefined (every board), and a board's members.
 */
export const boardsQuery = (q: Q, memberId: string | undefined, trashed: boolean) => {
  const query = q.selectFrom('boards').where('boards.trashed_at', trashed ? 'is not' : 'is', null)
  return memberId === undefined ? query : query.where('boards.id', 'in', memberBoardIds(q, memberId))
}
export const boardMembersQuery = (q: Q, boardId: string) =>
  q.selectFrom('users').where('users.id', 'in', q.selectFrom('board_members').select('user_id').where('board_id', '=', boardId))

/** The members of a page of boards, by name, in one query. */
export const membersOfBoards = async (q: Q, ids: readonly string[]) =>
  ids.length === 0
    ? []
    : q
        .selectFrom('board_members')
        .innerJoin('users', 'users.id', 'board_members.user_id')
        .selectAll('users')
        .select(['board_members.board_id', 'board_members.role as board_role'])
        .where('board_members.board_id', 'in', [...ids])
        .orderBy('users.name')
        .orderBy('users.id')
        .execute()

/** For each of these users, the boards they are a member of that `viewer` sees. */
export const boardsSharedWith = async (q: Q, userIds: readonly string[], viewer: Viewer) =>
  userIds.length === 0
    ? []
    : q
        .selectFrom('board_members')
        .innerJoin('boards', 'boards.id', 'board_members.board_id')
        .selectAll('boards')
        .select('board_members.user_id')
        .where('board_members.user_id', 'in', [...userIds])
        .where('boards.id', 'in', visibleBoardIds(q, viewer))
        .orderBy('boards.name')
        .execute()

/** Reserves a key prefix for a board for good; false when it is already reserved (by this board or another, now or before). */
export const reservePrefix = async (q: Q, prefix: string, boardId: string, at: string): Promise<boolean> => {
  const [r] = await q
    .insertInto('key_prefixes')
    .values({ prefix, board_id: boardId, created_at: at })
    .onConflict((oc) => oc.doNothing())
    .execute()
  return Number(r?.numInsertedOrUpdatedRows ?? 0) > 0
}
/**
 * Records that a board leaves `prefix` after giving card numbers up to `lastNum`: its old keys name those cards only.
 * A prefix the board takes back and leaves again records its later number.
 */
export const leavePrefix = (q: Q, prefix: string, boardId: string, lastNum: number) =>
  q.updateTable('key_prefixes').set({ last_num: lastNum }).where('prefix', '=', prefix).where('board_id', '=', boardId).execute()
/** Reserved prefixes that start with `start` (capital letters and digits only, so no LIKE wildcards). */
export const prefixesStartingWith = async (q: Q, start: string): Promise<string[]> =>
  (await q.selectFrom('key_prefixes').select('prefix').where('prefix', 'like', `${start}%`).execute()).map((r) => r.prefix)
/** The board a prefix is reserved for, if any. */
export const prefixHolder = async (q: Q, prefix: string): Promise<string | undefined> =>
  (await q.selectFrom('key_prefixes').select('board_id').where('prefix', '=', prefix).executeTakeFirst())?.board_id

/**
 * Locks the board's row until the transaction ends (see forUpdate), so changes that must see each other take turns:
 * the set of its lists (never the last one deleted twice), its tag names (never two that fold alike).
 */
export const lockBoard = (q: Q, boardId: string) => lockRows(q, q.selectFrom('boards').select('id').where('id', '=', boardId))

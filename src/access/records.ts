// Who sees records that are not simply on a board: one's own records, board-less notes and folders, saved filters,
// workspace-wide events.
import type { ExpressionBuilder } from 'kysely'
import type { Q } from '../db/database.js'
import type { SearchScope } from '../db/full-text.js'
import type { DB } from '../db/types.js'
import { type Actor, isAdminRole, type Role } from './roles.js'
import { visibleBoardIds, type Viewer } from './visibility.js'

/**
 * The one user whose records (billing rates, timesheets, board memberships) the viewer's sight is limited to: the
 * viewer, or undefined for owners and admins, who see everyone's. Stores take this as a plain filter.
 */
export const sightLimitedTo = (viewer: Viewer): string | undefined => (isAdminRole(viewer.role) ? undefined : viewer.id)

/** Whether a user with this workspace role sees a board they are (or are not) a member of: owners and admins see every board. */
export const roleSeesBoard = (role: Role, member: boolean): boolean => isAdminRole(role) || member

/**
 * Whether what a user made to receive events (a webhook subscription, a change feed read) receives an event of this
 * board (null: a workspace-wide event, such as audit.entry): owners and admins receive every event; anyone else the
 * events of the boards they are a member of at the time (a board in the trash too: its members stay), never
 * workspace-wide ones. Deliveries are judged by it at each attempt (gateBatch), and the change feed at each read;
 * `eventsReceivedOnlyOnBoardsOf` is the same rule for a query.
 */
export const receivesEvent = (role: Role, memberOfBoard: boolean, boardId: string | null): boolean => isAdminRole(role) || (boardId !== null && memberOfBoard)

/**
 * receivesEvent for a query over events: undefined when the viewer receives every event (owners and admins), else the
 * user whose board memberships the events' boards must be among (`memberBoardIds`). Stores take this as a plain filter.
 */
export const eventsReceivedOnlyOnBoardsOf = (viewer: Viewer): string | undefined => (isAdminRole(viewer.role) ? undefined : viewer.id)

/**
 * Events a user may see: of the boards they see, and for owners and admins also events of no board (workspace-wide);
 * an event meant for one user only (`audience_id`: a private record's) only by that user.
 */
export const eventsSeenBy = (q: Q, viewer: Viewer) => (eb: ExpressionBuilder<DB, 'events'>) =>
  eb.and([
    eb.or([eb('board_id', 'in', visibleBoardIds(q, viewer)), ...(isAdminRole(viewer.role) ? [eb('board_id', 'is', null)] : [])]),
    eb.or([eb('audience_id', 'is', null), eb('audience_id', '=', viewer.id)]),
  ])

/**
 * The saved filters a viewer sees: their own, and the shared ones; either only when of no board (the workspace's) or of
 * a board the viewer sees. So one's own of a board left (or in the trash) is out of sight too, until it is seen again.
 */
export const savedFiltersInSightOf = (q: Q, viewer: Viewer) => (eb: ExpressionBuilder<DB, 'saved_filters'>) =>
  eb.and([
    eb.or([eb('saved_filters.created_by', '=', viewer.id), eb('saved_filters.shared', '=', 1)]),
    eb.or([eb('saved_filters.board_id', 'is', null), eb('saved_filters.board_id', 'in', visibleBoardIds(q, viewer))]),
  ])

/** Who changes or deletes a saved filter they see: its creator; owners and admins also a shared one. */
export const managesSavedFilter = (viewer: Viewer, row: { created_by: string; shared: number }): boolean =>
  row.created_by === viewer.id || (row.shared === 1 && isAdminRole(viewer.role))

/**
 * The rows of `table` (notes or note folders) a viewer sees: those on a board the viewer sees, and board-less ones the
 * viewer made (owners and admins: every board-less one).
 */
export const notesInSightOf = (q: Q, viewer: Viewer, table: 'notes' | 'note_folders') => (eb: ExpressionBuilder<any, any>) =>
  eb.or([
    eb(`${table}.board_id`, 'in', visibleBoardIds(q, viewer)),
    isAdminRole(viewer.role) ? eb(`${table}.board_id`, 'is', null) : eb.and([eb(`${table}.board_id`, 'is', null), eb(`${table}.created_by`, '=', viewer.id)]),
  ])

/**
 * What a full-text search shows a viewer, as the index takes it: the cards, comments and notes of the boards the viewer
 * sees (none in the trash), named as the shorter list (the boards seen, or every board but the others), and the notes
 * on no board the viewer made (owners and admins: every one). The rows' own rules (a trashed card and its comments are
 * out of sight) are the index's. `board`: only that board, when the viewer sees it (and nothing otherwise).
 */
export async function searchScopeOf(q: Q, viewer: Viewer, board?: string): Promise<SearchScope> {
  const admin = isAdminRole(viewer.role)
  const rows = await q
    .selectFrom('boards')
    .leftJoin('board_members', (j) => j.onRef('board_members.board_id', '=', 'boards.id').on('board_members.user_id', '=', viewer.id))
    .select(['boards.id', 'boards.trashed_at', 'board_members.user_id as member'])
    .$if(board !== undefined, (qb) => qb.where('boards.id', '=', board!))
    .execute()
  const seen = rows.filter((r) => r.trashed_at === null && (admin || r.member !== null)).map((r) => r.id)
  if (board !== undefined) return { boards: { only: seen }, boardless: 'none' }
  const seenIds = new Set(seen)
  const unseen = rows.filter((r) => !seenIds.has(r.id)).map((r) => r.id)
  return {
    boards: seen.length <= unseen.length ? { only: seen } : { except: unseen },
    boardless: admin ? 'all' : { creator: viewer.id },
  }
}

/**
 * Whether a viewer manages (makes, lists, revokes) the tokens of a holder: their own, those of an agent they own
 * (`agentOwnerId` is the holder's owner when the holder is an agent), and every token for owners and admins.
 */
export const managesTokensOf = (viewer: Viewer, holderId: string, agentOwnerId: string | undefined): boolean =>
  isAdminRole(viewer.role) || holderId === viewer.id || agentOwnerId === viewer.id

/**
 * The tokens a viewer lists, by the same rule as `managesTokensOf`: their own and those of the agents they own;
 * undefined (no limit) for owners and admins. Stores take this as a plain filter on `tokens.user_id`.
 */
export const tokenHoldersOf = (q: Q, viewer: Viewer) =>
  isAdminRole(viewer.role)
    ? undefined
    : (eb: ExpressionBuilder<DB, 'tokens'>) =>
        eb.or([
          eb('tokens.user_id', '=', viewer.id),
          eb('tokens.user_id', 'in', q.selectFrom('agent_profiles').select('agent_profiles.user_id').where('agent_profiles.owner_id', '=', viewer.id)),
        ])

/**
 * Whether the actor sees what an automation run's steps sent and got back (their outputs and errors), or only how the run
 * went: those who may manage the automation (a write token on a board they see), and where the run's steps use signing
 * secrets, owners and admins only, the only ones who may save such steps. Others see each step's status alone.
 */
export const seesRunDetails = (actor: Actor, usesSecrets: boolean): boolean => actor.permission !== 'read' && (!usesSecrets || isAdminRole(actor.user.role))

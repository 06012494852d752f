// Who sees records that are not simply on a board: one's own records, board-less notes and folders, workspace-wide events.
import type { ExpressionBuilder } from 'kysely'
import type { Q } from '../db/database.js'
import type { DB } from '../db/types.js'
import { isAdminRole, type Role } from './roles.js'
import { visibleBoardIds, type Viewer } from './visibility.js'

/**
 * The one user whose records (billing rates, timesheets, board memberships) the viewer's sight is limited to: the
 * viewer, or undefined for owners and admins, who see everyone's. Stores take this as a plain filter.
 */
export const sightLimitedTo = (viewer: Viewer): string | undefined => (isAdminRole(viewer.role) ? undefined : viewer.id)

/** Whether a user with this workspace role sees a board they are (or are not) a member of: owners and admins see every board. */
export const roleSeesBoard = (role: Role, member: boolean): boolean => isAdminRole(role) || member

/** Events a user may see: of the boards they see, and for owners and admins also events of no board (workspace-wide). */
export const eventsSeenBy = (q: Q, viewer: Viewer) => (eb: ExpressionBuilder<DB, 'events'>) =>
  eb.or([eb('board_id', 'in', visibleBoardIds(q, viewer)), ...(isAdminRole(viewer.role) ? [eb('board_id', 'is', null)] : [])])

/**
 * The rows of `table` (notes or note folders) a viewer sees: those on a board the viewer sees, and board-less ones the
 * viewer made (owners and admins: every board-less one).
 */
export const notesInSightOf = (q: Q, viewer: Viewer, table: 'notes' | 'note_folders') => (eb: ExpressionBuilder<any, any>) =>
  eb.or([
    eb(`${table}.board_id`, 'in', visibleBoardIds(q, viewer)),
    isAdminRole(viewer.role) ? eb(`${table}.board_id`, 'is', null) : eb.and([eb(`${table}.board_id`, 'is', null), eb(`${table}.created_by`, '=', viewer.id)]),
  ])

// User and workspace queries.
import type { Q } from '../../db/database.js'
import { forUpdate } from '../../db/dialect.js'
import { rowsByIds } from '../../db/sql.js'
import type { AgentProfilesTable, UsersTable } from '../../db/types.js'

export const getUser = (q: Q, id: string) => q.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst()
/** Emails compare case-insensitively (ASCII), through the lower(email) index. */
export const getUserByEmail = (q: Q, email: string) =>
  q
    .selectFrom('users')
    .selectAll()
    .where((eb) => eb(eb.fn('lower', ['email']), '=', eb.fn('lower', [eb.val(email)])))
    .executeTakeFirst()
export const getUsers = (q: Q, ids: readonly string[]) => rowsByIds(q, 'users', ids)
export const insertUser = (q: Q, row: UsersTable) => q.insertInto('users').values(row).execute()
export const updateUserRow = (q: Q, id: string, set: Partial<UsersTable>) => q.updateTable('users').set(set).where('id', '=', id).execute()
export const countUsers = async (q: Q): Promise<number> =>
  Number(
    (
      await q
        .selectFrom('users')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  )
/** The owners, locked until the transaction ends (see forUpdate): two demotions at once cannot both see another owner left. */
export const countOwners = async (q: Q): Promise<number> =>
  (await forUpdate(q, q.selectFrom('users').select('id').where('role', '=', 'owner')).execute()).length
/** The longest-standing owner (there is always one). */
export const firstOwner = async (q: Q): Promise<UsersTable> =>
  q.selectFrom('users').selectAll().where('role', '=', 'owner').orderBy('created_at').orderBy('id').limit(1).executeTakeFirstOrThrow()

export const getWorkspace = (q: Q) => q.selectFrom('workspace').selectAll().executeTakeFirst()
export const insertWorkspace = (q: Q, row: { id: string; name: string; created_at: string }) =>
  q
    .insertInto('workspace')
    .values(row)
    .onConflict((oc) => oc.doNothing())
    .execute()

/** Base query of the user list. */
export const usersQuery = (q: Q) => q.selectFrom('users')

export const getAgentProfile = (q: Q, userId: string) => q.selectFrom('agent_profiles').selectAll().where('user_id', '=', userId).executeTakeFirst()
export const agentProfilesOf = (q: Q, userIds: readonly string[]): Promise<AgentProfilesTable[]> =>
  userIds.length === 0
    ? Promise.resolve([])
    : q
        .selectFrom('agent_profiles')
        .selectAll()
        .where('user_id', 'in', [...userIds])
        .execute()
export const insertAgentProfile = (q: Q, row: AgentProfilesTable) => q.insertInto('agent_profiles').values(row).execute()
export const updateAgentProfileRow = (q: Q, userId: string, set: Partial<AgentProfilesTable>) =>
  q.updateTable('agent_profiles').set(set).where('user_id', '=', userId).execute()
/** The agents a user owns. */
export const agentsOwnedBy = async (q: Q, ownerId: string): Promise<string[]> =>
  (await q.selectFrom('agent_profiles').select('user_id').where('owner_id', '=', ownerId).execute()).map((r) => r.user_id)

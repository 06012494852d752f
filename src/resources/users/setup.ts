// The workspace row and a new user: what first-run setup, `taskd user create` and the create route share. Kept apart
// from the service so that a command loads only this, not the list machinery of the API.
import type { Role } from '../../access/roles.js'
import { isoAt } from '../../clock.js'
import type { Q } from '../../db/database.js'
import type { UsersTable } from '../../db/types.js'
import { conflict } from '../../errors.js'
import { newId } from '../../ids.js'
import { countUsers, getUserByEmail, getWorkspace, insertUser, insertWorkspace } from './store.js'

/** Creates the workspace row when the database is new. */
export async function ensureWorkspace(q: Q, now: number): Promise<void> {
  // One fixed id, so two processes starting at once on an empty database cannot both add one (the second insert is a no-op).
  if (!(await getWorkspace(q))) await insertWorkspace(q, { id: 'workspace', name: 'Workspace', created_at: isoAt(now) })
}

export const isWorkspaceEmpty = async (q: Q): Promise<boolean> => (await countUsers(q)) === 0

/** Inserts a user; used by the API, the CLI and first-run setup. */
export async function insertNewUser(
  q: Q,
  now: number,
  input: { email: string; name: string; role: Role; kind?: UsersTable['kind'] },
  id = newId(),
): Promise<UsersTable> {
  if (await getUserByEmail(q, input.email)) throw conflict(`A user with email ${input.email} already exists.`)
  const row: UsersTable = { id, email: input.email, name: input.name, role: input.role, kind: input.kind ?? 'human', created_at: isoAt(now) }
  await insertUser(q, row)
  return row
}

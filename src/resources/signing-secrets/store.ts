// Signing secret queries.
import type { Q } from '../../db/database.js'
import { rowsByIds } from '../../db/sql.js'
import type { SigningSecretsTable } from '../../db/types.js'

export const getSigningSecret = (q: Q, id: string) => q.selectFrom('signing_secrets').selectAll().where('id', '=', id).executeTakeFirst()
export const insertSigningSecret = (q: Q, row: SigningSecretsTable) => q.insertInto('signing_secrets').values(row).execute()
/** Changes a secret; false when it is gone (a concurrent delete). */
export const updateSigningSecretRow = async (q: Q, id: string, set: Partial<SigningSecretsTable>): Promise<boolean> =>
  Number((await q.updateTable('signing_secrets').set(set).where('id', '=', id).executeTakeFirst()).numUpdatedRows) > 0
/** Deletes a secret; false when it was already gone. */
export const deleteSigningSecretRow = async (q: Q, id: string): Promise<boolean> =>
  Number((await q.deleteFrom('signing_secrets').where('id', '=', id).executeTakeFirst()).numDeletedRows) > 0
/** Base query of the list route: every secret of the workspace. */
export const signingSecretsQuery = (q: Q) => q.selectFrom('signing_secrets')
export const getSigningSecrets = (q: Q, ids: readonly string[]) => rowsByIds(q, 'signing_secrets', ids)

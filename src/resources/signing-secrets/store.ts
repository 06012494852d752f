// Signing secret queries.
import type { Q } from '../../db/database.js'
import { rowsByIds } from '../../db/sql.js'
import type { SigningSecretsTable } from '../../db/types.js'

export const getSigningSecret = (q: Q, id: string) => q.selectFrom('signing_secrets').selectAll().where('id', '=', id).executeTakeFirst()
export const insertSigningSecret = (q: Q, row: SigningSecretsTable) => q.insertInto('signing_secrets').values(row).execute()
/** Changes a secret; false when it is gone (a concurrent delete). */
export const updateSigningSecretRow = async (q: Q, id: string, set: Partial<SigningSecretsTable>): Promise<boolean> =>
  Number((await q.updateTable('signing_secrets').set(set).where('id', '=', id).executeTakeFirst()).numUpdatedRows) > 0
/** Forgets the values before a rotation whose overlap ended by `at`. */
export const forgetPreviousValues = async (q: Q, at: string): Promise<void> => {
  await q.updateTable('signing_secrets').set({ previous_value_enc: null, previous_until: null }).where('previous_until', '<=', at).execute()
}
/** Deletes a secret; false when it was already gone. */
export const deleteSigningSecretRow = async (q: Q, id: string): Promise<boolean> =>
  Number((await q.deleteFrom('signing_secrets').where('id', '=', id).executeTakeFirst()).numDeletedRows) > 0
/** Base query of the list route: every secret of the workspace. */
export const signingSecretsQuery = (q: Q) => q.selectFrom('signing_secrets')
export const getSigningSecrets = (q: Q, ids: readonly string[]) => rowsByIds(q, 'signing_secrets', ids)

/** Agents and agent workflows that sign their calls with a secret, as `kind name (id)`. */
export async function agentsUsingSecret(q: Q, secretId: string): Promise<string[]> {
  const agents = await q
    .selectFrom('agent_profiles')
    .innerJoin('users', 'users.id', 'agent_profiles.user_id')
    .select(['users.id', 'users.name'])
    .where('agent_profiles.signing_secret_id', '=', secretId)
    .execute()
  const workflows = await q
    .selectFrom('agent_workflow_steps')
    .innerJoin('agent_workflows', 'agent_workflows.id', 'agent_workflow_steps.workflow_id')
    .select(['agent_workflows.id', 'agent_workflows.name'])
    .distinct()
    .where('agent_workflow_steps.signing_secret_id', '=', secretId)
    .execute()
  return [...agents.map((a) => `agent ${a.name} (${a.id})`), ...workflows.map((w) => `agent workflow ${w.name} (${w.id})`)]
}

// Agent kickoffs in API shape (a page's agent names in one query).
import { isoAt } from '../../clock.js'
import type { Q } from '../../db/database.js'
import type { AgentKickoffsTable } from '../../db/types.js'
import { getUsers } from '../users/published.js'
import { AgentPowers } from '../../access/roles.js'
import { KickoffSchema, type KickoffView } from './schema.js'
import { fromJsonColumn } from '../../db/json.js'

export async function kickoffViews(q: Q, rows: readonly AgentKickoffsTable[]): Promise<KickoffView[]> {
  const agents = new Map((await getUsers(q, [...new Set(rows.map((r) => r.agent_id))])).map((u) => [u.id, u]))
  return rows.map((r) => ({
    id: r.id,
    card: r.card_id,
    agent: { id: r.agent_id, name: agents.get(r.agent_id)?.name ?? '' },
    workflow: r.workflow_id,
    step: r.step === null ? null : { index: r.step, name: r.step_name ?? '' },
    powers: fromJsonColumn(AgentPowers, r.powers),
    model: r.model,
    effort: r.effort,
    message: r.message,
    status: r.status,
    via: r.via,
    attempts: r.attempts,
    next_attempt_at: r.status === 'pending' || r.status === 'queued' ? isoAt(r.next_attempt_at) : null,
    expires_at: r.expires_at,
    run: r.run_id,
    requested_by: fromJsonColumn(KickoffSchema.shape.requested_by, r.requested_by),
    last_error: r.last_error,
    delivered_at: r.delivered_at,
    created: r.created_at,
    updated: r.updated_at,
  }))
}

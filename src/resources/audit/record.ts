// Writing the audit log: the one helper every audited action calls, inside the action's own transaction, so an entry
// exists exactly when its action committed. Each entry also goes out as the event `audit.entry`.
import os from 'node:os'
import type { Actor } from '../../access/roles.js'
import { isoAt } from '../../clock.js'
import type { Tx } from '../../db/database.js'
import type { Deps } from '../../deps.js'
import { emitEvent } from '../../events/emit.js'
import { registerEvents } from '../../events/names.js'
import { newId } from '../../ids.js'
import { auditView } from './present.js'
import type { AuditAction, AuditActor, AuditDetails, AuditTargetType } from './schema.js'
import { insertAuditEntry } from './store.js'
import { AUDIT_EVENTS } from './events.js'

// Known to the event registry wherever an entry is written: a `taskd` command (token create) does not load the module
// list, and without the name its entries would reach no subscription.
registerEvents(AUDIT_EVENTS)

/** Who acts when no token does: the command line (`taskd token create`, `export`, `import`, `restore`) or taskd itself. */
export interface Operator {
  as: AuditActor
}

/** taskd itself: a subscription paused for failing, a board the trash emptied. */
export const SYSTEM: Operator = { as: { type: 'system', id: null, name: 'taskd' } }

/** A `taskd` command, named by the operating-system user who ran it. */
export function commandLine(): Operator {
  let name = 'cli'
  try {
    name = os.userInfo().username || name
  } catch {
    // no user name on this system (a container without /etc/passwd entry): "cli" it is
  }
  return { as: { type: 'cli', id: null, name } }
}

/** The actor as the log names it: a person or agent, or what an automation run acted for. */
export function auditActorOf(actor: Actor): AuditActor {
  if (actor.run) return { type: actor.run.as.kind ?? 'user', id: actor.run.as.id, name: actor.run.as.name }
  return { type: actor.user.kind === 'agent' ? 'agent' : 'user', id: actor.user.id, name: actor.user.name }
}

/**
 * Keys a detail must never have: the entry (and the event every owner's and admin's receivers get) would carry a
 * secret. The call sites write names and flags (`has_secret`, `changed: ["secret"]`), never values; this catches a slip.
 */
const SECRET_KEY = /^(secret|secrets|value|values|password|passphrase|token|token_value|header_value|credentials?|hash|\w+_enc)$/i

function refuseSecrets(value: unknown, path: string): void {
  if (value === null || typeof value !== 'object') return
  for (const [k, v] of Object.entries(value)) {
    if (SECRET_KEY.test(k)) throw new Error(`audit details must not hold "${path}${k}": it may be a secret`)
    refuseSecrets(v, `${path}${k}.`)
  }
}

export interface AuditTargetRef {
  /** The target's type; by default the action's first part (`token` of `token.created`). */
  type?: AuditTargetType
  id: string | null
  name: string | null
}

/**
 * Appends an entry for `action` done by `by` to `target`, in `tx`, and emits it as `audit.entry`. `board`: the board the
 * action concerns. `details` names what changed and must hold no secret. Returns the entry's id.
 */
export async function audit(
  deps: Deps,
  tx: Tx,
  by: Actor | Operator,
  action: AuditAction,
  target: AuditTargetRef,
  more: { board?: string | null; details?: AuditDetails } = {},
): Promise<string> {
  const details = more.details ?? {}
  refuseSecrets(details, '')
  const actor = 'as' in by ? by.as : auditActorOf(by)
  const row = {
    id: newId(),
    action,
    actor_type: actor.type,
    actor_id: actor.id,
    actor_name: actor.name,
    target_type: target.type ?? action.slice(0, action.indexOf('.')),
    target_id: target.id,
    target_name: target.name,
    board_id: more.board ?? null,
    details: JSON.stringify(details),
    request_id: ('as' in by ? undefined : by.requestId) ?? null,
    created_at: isoAt(deps.clock.now()),
  }
  await insertAuditEntry(tx.q, row)
  const { actor: stated, ...data } = auditView(row)
  // Workspace-wide: only subscriptions to every board made by owners and admins receive it.
  await emitEvent(deps, tx, { name: 'audit.entry', boardId: null, data, actor: { stated } })
  return row.id
}

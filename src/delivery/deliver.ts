// One attempt of one outbox row: re-check the subscription, send it signed, judge the answer.
import { isoAt } from '../clock.js'
import { receivesEvent } from '../access/records.js'
import { isAdminRole } from '../access/roles.js'
import type { Q } from '../db/database.js'
import type { OutboxTable, WebhookLogsTable, WebhooksTable } from '../db/types.js'
import type { Deps } from '../deps.js'
import { matchesSelectors } from '../events/names.js'
import { newId } from '../ids.js'
import { authHeaders, openAuth, openPreviousSecret, openSecret } from './credentials.js'
import { deliveryHeaders, sensitiveStaticValues } from './headers.js'
import { judgeAttempt } from './policy.js'
import { retryAt } from '../jobs/retry.js'
import { redactEchoes } from './redact.js'
import { RESPONSE_EXCERPT_BYTES } from './send.js'
import type { Sender } from './send-thread.js'
import { boardsOfWebhooks, creatorRoles, existingBoards, getWebhooks, membershipKey, membershipPairs } from './store.js'
import { fromJsonColumn, StringList, StringMap } from '../db/json.js'

export interface DeliveryEnv {
  deps: Deps
  userAgent: string
  /** The sending thread, or (tests with a fake resolver) an agent on this one. */
  sender: Sender
  /** Opened secrets and headers per subscription, reused until the stored values change. */
  material: Map<string, Material>
}

interface Material {
  key: string
  secret: string | null
  /** The secret before a rotation, opened while the overlap lasts: the attempt checks the time itself. */
  previous: { secret: string; until: number } | null
  auth: Record<string, string>
  static: Record<string, string>
  /** Values a receiver must never get to show back through the log: the secret, credentials, credential headers. */
  sensitive: string[]
}

/** What an attempt decided; recorded in batches by src/delivery/record.ts. `log` is null when the row vanished with its subscription. */
export interface Settlement {
  id: string
  webhookId: string
  status: OutboxTable['status']
  dueAt?: number
  log: Omit<WebhookLogsTable, 'seq'> | null
  /**
   * What the attempt says of the receiver's health: a delivered event (`success`), or one that ended failed or dropped
   * after the receiver was tried (`failure`); absent for a retry still to come, a row the gate held back and a test.
   */
  health?: 'success' | 'failure'
}

export type Gate = { sub: WebhooksTable } | { drop: string } | { gone: true }

/**
 * Decides for a claimed batch, right before sending, whether each row may go out: membership is re-checked at
 * delivery time, so a member who left the board stops receiving even what was queued. One query per table per batch.
 */
export async function gateBatch(q: Q, rows: readonly OutboxTable[]): Promise<Map<string, Gate>> {
  const subs = new Map(
    (
      await getWebhooks(
        q,
        rows.map((r) => r.webhook_id),
      )
    ).map((w) => [w.id, w]),
  )
  const roles = await creatorRoles(
    q,
    [...subs.values()].map((s) => s.created_by),
  )
  const roleOf = (sub: WebhooksTable) => roles.get(sub.created_by) ?? 'member'
  const exempt = (sub: WebhooksTable) => isAdminRole(roleOf(sub))
  const pairs = rows.flatMap((r) => {
    const sub = subs.get(r.webhook_id)
    return sub && r.board_id !== null && !exempt(sub) ? [{ boardId: r.board_id, userId: sub.created_by }] : []
  })
  const members = await membershipPairs(q, pairs)
  const boards = await boardsOfWebhooks(q, [...subs.keys()])
  const existing = await existingBoards(
    q,
    rows.flatMap((r) => (r.board_id === null ? [] : [r.board_id])),
  )
  // A subscription edited after the event was queued is judged as it is now: events and boards it no longer wants stay unsent.
  const stillWanted = (sub: WebhooksTable, row: OutboxTable) =>
    matchesSelectors(fromJsonColumn(StringList, sub.events), row.event) &&
    (sub.all_boards === 1 || row.board_id === null || (boards.get(sub.id) ?? []).includes(row.board_id))
  const gates = new Map<string, Gate>()
  for (const row of rows) {
    const sub = subs.get(row.webhook_id)
    // A test delivery or a redelivery is an explicit request to try the endpoint, so it goes out even while the
    // subscription is paused (who asked for a redelivery could see the logged delivery then).
    if (!sub) gates.set(row.id, { gone: true })
    else if (row.event === 'webhook.test' || row.redelivery_of !== null) gates.set(row.id, { sub })
    else if (row.board_id !== null && !existing.has(row.board_id) && row.event.endsWith('.deleted')) gates.set(row.id, farewell(sub, row))
    else if (!sub.active) gates.set(row.id, { drop: 'the subscription is inactive; not sent' })
    else if (!stillWanted(sub, row)) gates.set(row.id, { drop: 'the subscription no longer covers this event or board; not sent' })
    else if (!receivesEvent(roleOf(sub), row.board_id !== null && members.has(membershipKey(row.board_id, sub.created_by)), row.board_id)) {
      const why =
        row.board_id === null
          ? 'workspace-wide events go to subscriptions of owners and admins only'
          : "the subscription's creator is no longer a member of the event's board"
      gates.set(row.id, { drop: `${why}; not sent` })
    } else gates.set(row.id, { sub })
  }
  return gates
}

/**
 * A deletion event of a board deleted for good. The board's link to the subscription, its members and (for a
 * subscription that named only it) the subscription's activity went with the board, but the row was queued while the
 * board was covered and the creator a member: it goes out, so the receiver can drop its copies, unless a person has
 * paused the subscription or taken the event out of it since. Other events of that board are judged as usual (and so
 * reach only subscriptions to every board).
 */
function farewell(sub: WebhooksTable, row: OutboxTable): Gate {
  if (!sub.active && sub.paused_reason !== 'board_deleted') return { drop: 'the subscription is inactive; not sent' }
  if (!matchesSelectors(fromJsonColumn(StringList, sub.events), row.event)) return { drop: 'the subscription no longer covers this event or board; not sent' }
  return { sub }
}

/** Decrypting per delivery would cost more than the signature; the key includes the sealed values, so any edit misses. */
function materialFor(env: DeliveryEnv, sub: WebhooksTable): Material {
  const key = [sub.secret_enc, sub.previous_secret_enc, sub.previous_secret_until, sub.auth_enc, sub.auth_type, sub.auth_header_name, sub.headers].join(
    '\u0000',
  )
  const cached = env.material.get(sub.id)
  if (cached?.key === key) return cached
  const box = env.deps.secrets
  const secret = openSecret(box, sub)
  const now = env.deps.clock.now()
  const previous = openPreviousSecret(box, sub, now)
  const creds = openAuth(box, sub)
  const auth = authHeaders(sub.auth_type, sub.auth_header_name, creds)
  const statics = fromJsonColumn(StringMap, sub.headers)
  const m: Material = {
    key,
    secret,
    previous: previous === null ? null : { secret: previous, until: Date.parse(sub.previous_secret_until!) },
    auth,
    static: statics,
    // Not the signing secret: it never leaves the server, so redacting it would only tell a guesser when a guess was right.
    sensitive: [creds.token, creds.password, creds.header_value, ...Object.values(auth), ...sensitiveStaticValues(statics)]
      .flatMap((v) => (typeof v === 'string' ? [v, v.replace(/^(Bearer|Basic) /, '')] : []))
      .filter((v) => v.length > 0),
  }
  if (env.material.size > 1000) env.material.clear()
  env.material.set(sub.id, m)
  return m
}

export async function deliverRow(env: DeliveryEnv, row: OutboxTable, gate: Gate): Promise<Settlement> {
  const { deps } = env
  const attempt = row.attempts + 1
  const at = isoAt(deps.clock.now())
  const logOf = (l: Pick<WebhookLogsTable, 'status_code' | 'outcome' | 'error' | 'duration_ms' | 'response_excerpt'>) => ({
    id: newId(),
    webhook_id: row.webhook_id,
    board_id: row.board_id,
    delivery_id: row.id,
    event: row.event,
    attempt,
    at,
    request_body: row.body,
    ...l,
  })
  if ('gone' in gate) return { id: row.id, webhookId: row.webhook_id, status: 'dropped', log: null }
  if ('drop' in gate) {
    return {
      id: row.id,
      webhookId: row.webhook_id,
      status: 'dropped',
      log: logOf({ status_code: null, outcome: 'dropped', error: gate.drop, duration_ms: 0, response_excerpt: '' }),
    }
  }
  const { sub } = gate
  let material: Material
  try {
    material = materialFor(env, sub)
  } catch {
    // Sending unsigned or without credentials would be worse than not sending; the message never includes the secret.
    const error = 'stored secret or credentials cannot be decrypted (was the master key changed?)'
    return {
      id: row.id,
      webhookId: row.webhook_id,
      status: 'failed',
      log: logOf({ status_code: null, outcome: 'failed', error, duration_ms: 0, response_excerpt: '' }),
    }
  }
  const headers = deliveryHeaders({
    event: row.event,
    // The id the body carries: a redelivery repeats the id of the delivery it sends again, so the receiver can drop it.
    deliveryId: row.redelivery_of ?? row.id,
    body: row.body,
    secret: material.secret,
    previousSecret: material.previous && material.previous.until > deps.clock.now() ? material.previous.secret : null,
    nowSeconds: deps.clock.now() / 1000,
    userAgent: env.userAgent,
    auth: material.auth,
    static: material.static,
  })
  const result = await env.sender.send({
    url: sub.url,
    method: sub.method,
    headers,
    body: row.body,
    timeoutMs: deps.config.webhookTimeoutMs,
    allowPrivate: deps.config.allowPrivateTargets,
  })
  const verdict = judgeAttempt(result, attempt)
  const health = row.event === 'webhook.test' || verdict.status === 'pending' ? undefined : verdict.status === 'delivered' ? 'success' : 'failure'
  return {
    id: row.id,
    webhookId: row.webhook_id,
    status: verdict.status,
    health,
    dueAt: verdict.status === 'pending' ? retryAt(deps.clock.now(), deps.config.webhookRetryDelays, attempt - 1) : undefined,
    log: logOf({
      status_code: result.statusCode,
      outcome: verdict.outcome,
      error: verdict.error ?? null,
      duration_ms: result.durationMs,
      response_excerpt: redactEchoes(result.responseExcerpt, material.sensitive, RESPONSE_EXCERPT_BYTES),
    }),
  }
}

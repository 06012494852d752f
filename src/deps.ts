// What every service receives: the database, the config, the clock, the secret box, the wake-ups of the background
// workers, the event hook that queues automation runs, and the hook that announces subscriptions paused for failing.
import type { Clock } from './clock.js'
import type { Config } from './config.js'
import type { SecretBox } from './crypto.js'
import type { Db, Tx } from './db/database.js'
import type { WebhooksTable } from './db/types.js'
import type { Waiters } from './waiters.js'

export interface Deps {
  db: Db
  config: Config
  clock: Clock
  /** Called after a transaction that wrote outbox rows commits, so deliveries start at once. */
  onOutboxWrite: () => void
  /** Seals stored secrets and credentials (AES-256-GCM under the master key). */
  secrets: SecretBox
  /** Called after a transaction that queued automation runs commits, so they start at once. */
  onRunsQueued: () => void
  /** Called after a transaction that queued or changed agent kickoffs commits, so delivery starts at once. */
  onKickoffsQueued: () => void
  /** Claim long polls waiting for a kickoff (keyed by agent id); a new kickoff notifies them. */
  claimWaiters: Waiters
  /** Change feed requests waiting for events (GET /v1/events with `wait`), each by its own key; closed at shutdown. */
  feedWaiters: Waiters
  /**
   * Called inside the transaction of every event that no automation run caused (src/events/emit.ts): event
   * automations queue their runs here, so a change and the runs it starts commit together.
   */
  onEvents: (deps: Deps, tx: Tx, events: EmittedEvent[]) => Promise<void>
  /**
   * Called inside the transaction in which the outbox recorded deliveries and paused subscriptions that kept failing
   * (src/delivery/record.ts): the webhooks family writes each one's audit entry and tells its creator (inbox).
   */
  onWebhooksPaused: (deps: Deps, tx: Tx, paused: readonly WebhooksTable[]) => Promise<void>
}

/** An event as written, for the event hook. */
export interface EmittedEvent {
  id: string
  name: string
  boardId: string | null
  data: Record<string, unknown>
  /** The automations whose runs led to the event (see Actor.chain): none of them starts again from it. */
  chain: readonly string[]
}

// What every service receives: the database, the config, the clock, the secret box and the outbox wake-up.
import type { Clock } from './clock.js'
import type { Config } from './config.js'
import type { SecretBox } from './crypto.js'
import type { Db } from './db/database.js'

export interface Deps {
  db: Db
  config: Config
  clock: Clock
  /** Called after a transaction that wrote outbox rows commits, so deliveries start at once. */
  onOutboxWrite: () => void
  /** Seals stored secrets and credentials (AES-256-GCM under the master key). */
  secrets: SecretBox
}

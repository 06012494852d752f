// What every service receives: the database, config, clock and the caller.
import type { Clock } from '../clock.js'
import type { Config } from '../config.js'
import type { SecretBox } from '../crypto.js'
import type { Sql } from '../db/sql.js'
import type { UsersTable } from '../db/types.js'

export type Permission = 'read' | 'write' | 'full'

export interface Deps {
  sql: Sql
  config: Config
  clock: Clock
  /** Called after a transaction that wrote outbox rows commits, so deliveries start at once. */
  onOutboxWrite: () => void
  /** Seals stored webhook secrets and credentials; when absent, src/crypto.ts secretsOf() loads the database's key. */
  secrets?: SecretBox
}

export interface Actor {
  user: UsersTable
  tokenId: string
  permission: Permission
}

export const isAdmin = (actor: Actor): boolean => actor.user.role === 'owner' || actor.user.role === 'admin'

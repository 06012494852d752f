// The rows of a workspace export.
import type { Sql } from '../../db/sql.js'
import { qb } from '../../db/sql.js'

const EXPORTED = [
  'workspace',
  'users',
  'teams',
  'team_members',
  'boards',
  'board_members',
  'lists',
  'cards',
  'card_assignees',
  'card_watchers',
  'tags',
  'card_tags',
] as const

/** Every record a workspace export carries; token hashes, webhooks and their secrets stay out. */
export const exportRows = (sql: Sql) =>
  Object.fromEntries(EXPORTED.map((table) => [table, sql.all(qb.selectFrom(table).selectAll())])) as Record<(typeof EXPORTED)[number], unknown[]>

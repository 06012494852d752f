// The rows of a workspace export.
import type { Db } from '../../db/database.js'

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
  'comments',
  'comment_mentions',
  'checklists',
  'checklist_items',
  'time_entries',
  'timesheet_approvals',
  'user_billing_rates',
  'note_folders',
  'notes',
  'note_publications',
] as const

/** Every record a workspace export carries; token hashes, webhooks and their secrets stay out. Read off the event loop. */
export const exportRows = async (db: Db) =>
  Object.fromEntries(await Promise.all(EXPORTED.map(async (table) => [table, await db.read(db.q.selectFrom(table).selectAll())]))) as Record<
    (typeof EXPORTED)[number],
    unknown[]
  >

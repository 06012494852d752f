// Boards: the record, bodies, and membership bodies.
import { z } from 'zod'
import { name, orNull, queryBool, UserRef } from '../../http/schemas.js'
import { agrees } from '../../db/agrees.js'
import type { BoardMembersTable } from '../../db/types.js'
import { ListCategory } from '../lists/schema.js'
import { UserSchema } from '../users/schema.js'
import { MAX_FIELDS_PER_BOARD, XattrFieldSpec } from '../xattr/schema.js'

export const BoardSchema = z
  .strictObject({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    key_prefix: z.string(),
    created_by: orNull(UserRef),
    created: z.string(),
    updated: z.string(),
    trashed: z.boolean().meta({ description: 'In the trash: hidden with all it holds, deleted for good 30 days after trashed_at unless restored.' }),
    trashed_at: z.string().nullable(),
    purge_at: z.string().nullable().meta({ description: 'When a board in the trash is deleted for good; from then on it can no longer be restored.' }),
    folder: z.string().nullable().meta({ description: 'The folder (/v1/folders) the board is in; null for none.' }),
  })
  .meta({ id: 'Board' })
export type BoardView = z.infer<typeof BoardSchema>

const keyPrefix = z
  .string()
  .regex(/^[A-Z][A-Z0-9]{0,9}$/, 'Must be 1 to 10 capital letters or digits, starting with a letter.')
  .meta({
    description:
      'Card keys are <prefix>-<n>. Unique in the workspace for good: a prefix another board has (or had, also a deleted one) is a 422; a board may go back to one of its own. ' +
      'On create without one, it is derived from the name (MAR, MAR2, ...). After a change, the old keys still find their cards in filters and the MCP tool get_card (key = "OLD-3"), and only those: a card numbered after the change never had an old key, so key = "OLD-9" does not find NEW-9.',
  })
const description = z.string().max(20000)
const folder = z.string().min(1).nullable().meta({
  description:
    'A folder (/v1/folders record id) to put the board in; null for none. Every member sees folder names; the board stays visible to its members only.',
})

export const CreateBoardBody = z
  .strictObject({
    name,
    key_prefix: keyPrefix.optional(),
    description: description.optional(),
    lists: z.array(name).min(1).max(50).optional(),
    folder: folder.optional(),
    template: z.string().min(1).optional().meta({
      description:
        'A board template (/v1/templates record id): the board gets its statuses, lists, tags, custom fields and cards, every id new (not with `lists`).',
    }),
  })
  .meta({ id: 'CreateBoardBody' })
export type CreateBoardInput = z.infer<typeof CreateBoardBody>
export const UpdateBoardBody = z
  .strictObject({ name: name.optional(), key_prefix: keyPrefix.optional(), description: description.optional(), folder: folder.optional() })
  .meta({ id: 'UpdateBoardBody' })
export type UpdateBoardInput = z.infer<typeof UpdateBoardBody>
export const CloneBoardBody = z.strictObject({ name: name.optional() }).meta({ id: 'CloneBoardBody' })

/** How many days a board stays in the trash before it is deleted for good. */
export const TRASH_DAYS = 30

export const BoardRole = z
  .enum(['admin', 'member'])
  .meta({ description: "A board admin changes the board's members, renames, trashes and restores it; the creator is the first." })
export type BoardRole = z.infer<typeof BoardRole>
agrees<BoardRole, BoardMembersTable['role']>() // the CHECK of schema.sql, or the build fails
export const BoardMemberSchema = UserSchema.extend({ board_role: BoardRole }).meta({ id: 'BoardMember' })
export const AddMemberBody = z
  .strictObject({
    user: z.string().min(1).optional().meta({ description: 'The user (record id) to add; give this or `group`.' }),
    group: z.string().min(1).optional().meta({
      description: 'A group or team (/v1/groups record id): every member of it not yet on the board is added; the answer is then `200 { added: [user ids] }`.',
    }),
    role: BoardRole.optional().meta({ description: '`member` unless given; `admin` when the board has no admin yet.' }),
  })
  .meta({ id: 'AddBoardMemberBody', examples: [{ user: 'u_123' }, { group: 'g_123' }] })
export const UpdateMemberBody = z.strictObject({ role: BoardRole }).meta({ id: 'UpdateBoardMemberBody' })
export const boardListParams = {
  trashed: queryBool.default(false).meta({ description: `Boards in the trash (deleted for good ${TRASH_DAYS} days after trashed_at) instead of the others.` }),
}
export const deleteBoardQuery = z.object({
  permanent: queryBool.default(false).meta({ description: 'Delete for good at once, with everything on the board (workspace owners and admins only).' }),
})
export const memberParams = z.object({ id: z.string().min(1), user: z.string().min(1) })

export const MAX_STRUCTURE_CARDS = 500
const hex = z.string().regex(/^#[0-9a-fA-F]{6}$/, 'Must be a hex color like #ff8800.')
/**
 * A board's structure without ids, as a board template holds it and a board is built from it (clone reads one from the
 * source board): statuses, lists bound to them by name, tags, custom fields by key, and optionally cards.
 */
export const BoardStructure = z
  .strictObject({
    statuses: z
      .array(z.strictObject({ name, category: ListCategory, color: hex.nullable().optional() }))
      .max(50)
      .default([])
      .meta({ description: 'Statuses in order; names unique (case-insensitively). Empty: one per list, like a new board.' }),
    lists: z
      .array(
        z.strictObject({
          name,
          category: ListCategory.optional().meta({ description: 'The category of an unbound list (a bound list has its status’s); default started.' }),
          status: z.string().nullable().optional().meta({ description: 'The name of a status above the list is bound to.' }),
        }),
      )
      .min(1)
      .max(50)
      .meta({ description: 'Lists in order, at least one.' }),
    tags: z
      .array(z.strictObject({ name, color: hex.nullable().optional() }))
      .max(200)
      .default([]),
    xattr_fields: z
      .array(XattrFieldSpec)
      .max(MAX_FIELDS_PER_BOARD)
      .default([])
      .meta({ description: 'Custom fields in order, checked as a create checks them.' }),
    cards: z
      .array(
        z.strictObject({
          title: z.string().trim().min(1).max(500),
          description: z.string().max(100_000).optional(),
          priority: z.number().int().min(0).max(4).optional(),
          list: z.string().meta({ description: 'The name of a list above.' }),
          tags: z.array(z.string()).max(50).optional().meta({ description: 'Names of tags above.' }),
          xattr: z.record(z.string(), z.unknown()).optional().meta({ description: 'Custom field values by key (selects by option name).' }),
        }),
      )
      .max(MAX_STRUCTURE_CARDS)
      .default([]),
  })
  .meta({ id: 'BoardStructure' })
export type BoardStructure = z.output<typeof BoardStructure>

// Cards (tasks): the record, the create, update, move and complete bodies, and the list's own query parameters.
import { z } from 'zod'
import { dateOrDateTime, orNull, queryBool, UserRef } from '../../http/schemas.js'
import { ListCategory } from '../lists/schema.js'
import { CardStatusSchema } from '../board-statuses/schema.js'
import { XattrValuesInput, XattrValuesView } from '../xattr/schema.js'

/** Priority names by value, 0 to 4. */
export const PRIORITY_NAMES = ['none', 'low', 'medium', 'high', 'urgent'] as const
const MAX_PRIORITY = PRIORITY_NAMES.length - 1
export const PRIORITY_HELP = PRIORITY_NAMES.map((n, i) => `${i} ${n}`).join(', ')

/** The completion rule (completion.ts) as the API document states it. */
export const COMPLETION_RULE =
  "A card's completion follows its list: moving a card into a list of category `completed` completes it, and moving it out of one into a list of another category re-opens it. Completing a card moves it to its board's first `completed` list when the board has one (else it stays where it is); re-opening a card that is in a `completed` list moves it to the board's first `unstarted` list (else `started`, else `backlog`). A request naming both a list and a completion that contradict each other answers 422. The same rule holds for every path: create, PATCH, move, complete, the bulk routes, automation steps, approved agent runs, MCP tools and a list deleted with `move_to`."

export const CardSchema = z
  .strictObject({
    id: z.string(),
    key: z.string().meta({ description: 'Human key `<PREFIX>-<n>`; endpoints take the record id, never the key' }),
    title: z.string(),
    description: z.string(),
    board: z.string(),
    list: z.string(),
    position: z.number(),
    priority: z.number().int().meta({ description: PRIORITY_HELP }),
    assignees: z.array(z.string()),
    tags: z.array(z.string()),
    watchers: z.array(z.string()),
    files: z.array(z.string()).meta({ description: 'Ids of the files attached to the card (`/v1/files?card=`), oldest first.' }),
    start_date: z.string().nullable(),
    due_date: z.string().nullable(),
    completed: z.boolean().meta({ description: `Whether the card is completed. ${COMPLETION_RULE}` }),
    completed_at: z.string().nullable().meta({ description: 'When it was completed; null while it is not.' }),
    archived: z.boolean(),
    trashed: z.boolean(),
    state: ListCategory.meta({ description: "The category of the card's list." }),
    created: z.string(),
    updated: z.string(),
    created_by: orNull(UserRef),
    status: CardStatusSchema.nullable(),
    milestone: z.string().nullable().meta({ description: 'The milestone (record id) of the card’s board it counts towards; null for none.' }),
    xattr: XattrValuesView,
    checklist_progress: z
      .strictObject({ done: z.number().int(), total: z.number().int() })
      .meta({ description: "Ticked and all items over all the card's checklists." }),
    parent: z.string().nullable().meta({ description: 'The parent card (record id), or null: the source of its `parent_of` link.' }),
    subtasks: z
      .strictObject({ done: z.number().int(), total: z.number().int() })
      .meta({ description: 'Its subtasks (the cards whose parent it is, not in the trash): completed and all.' }),
    blocked_by_open: z.number().int().meta({ description: 'How many cards that block it (dependencies) are not completed (nor in the trash).' }),
    existing: z.boolean().optional().meta({ description: 'true when an idempotent replay returned an existing card' }),
    expand: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ id: 'Card' })
export type CardView = z.infer<typeof CardSchema>

const ids = z.array(z.string().min(1)).max(100)
const title = z.string().trim().min(1).max(500).meta({ description: 'The title, 1 to 500 characters.' })
const position = z.number().finite()
const editable = {
  description: z.string().max(100_000).optional().meta({ description: 'Markdown, up to 100,000 characters.' }),
  list: z
    .string()
    .min(1)
    .optional()
    .meta({ description: "A list (record id) of the card's board. A list of category `completed` completes the card; moving out of one re-opens it." }),
  position: position.optional().meta({ description: 'Order within the list, ascending; default: the end.' }),
  priority: z
    .number()
    .int()
    .min(0)
    .max(MAX_PRIORITY)
    .optional()
    .meta({ description: `${PRIORITY_HELP}.` }),
  assignees: ids.optional().meta({ description: "User ids, members of the card's board." }),
  tags: ids.optional().meta({ description: "Tag ids of the card's board." }),
  watchers: ids.optional().meta({ description: "User ids, members of the card's board; they are told of changes." }),
  start_date: dateOrDateTime.nullable().optional().meta({ description: '`YYYY-MM-DD` or ISO 8601; null clears it.' }),
  due_date: dateOrDateTime.nullable().optional().meta({ description: '`YYYY-MM-DD` or ISO 8601; null clears it.' }),
  completed: z.boolean().optional().meta({
    description:
      "true completes the card (moving it to the board's first `completed` list, if any), false re-opens it (out of a `completed` list, to the first `unstarted`, `started` or `backlog` list).",
  }),
  archived: z.boolean().optional().meta({ description: 'Archived cards stay on the board but out of the way.' }),
  parent: z.string().min(1).nullable().optional().meta({
    description:
      'The parent card (record id, a card you see, on any board), or null for none. Setting it makes, replaces or removes the parent_of link; a parent chain may not cycle (422 naming the cards by keys).',
  }),
  status: z.string().min(1).optional().meta({
    description:
      "A status (record id) of the card's board: the card goes to the board's first list bound to it (it stays where it is when its list already has it). No list bound to it is a 422 naming `status`; with `list` too, the list must have that status.",
  }),
  milestone: z.string().min(1).nullable().optional().meta({
    description: "A milestone (record id) of the card's board; null takes the card off its milestone. One of another board is a 422 naming `milestone`.",
  }),
  xattr: XattrValuesInput.optional(),
}

export const CreateCardBody = z
  .strictObject({
    title: title.optional().meta({ description: 'The title, 1 to 500 characters; required unless the card template gives one.' }),
    template: z.string().min(1).optional().meta({
      description:
        'A card template (record id) of the board: the card starts with its title, description, priority, tags, assignees, custom field values (merged by key) and a checklist of its items; the fields named here win. A tag, user or field of the template that is gone is skipped.',
    }),
    board: z.string().min(1).meta({ description: 'The board (record id).' }),
    idempotency_key: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .meta({ description: 'A key of yours: a retry with the same key on the board returns the card made first.' }),
    ...editable,
  })
  .meta({ id: 'CreateCardBody' })
export type CreateCardInput = z.infer<typeof CreateCardBody>
export const UpdateCardBody = z
  .strictObject({
    title: title.optional(),
    ...editable,
    trashed: z.boolean().optional().meta({ description: 'true moves the card to the trash, false brings it back.' }),
  })
  .meta({ id: 'UpdateCardBody' })
/** Fields a change may set; moves add `board`. */
export type CardFields = z.infer<typeof UpdateCardBody>
export const MoveCardBody = z
  .strictObject({
    list: z
      .string()
      .min(1)
      .meta({ description: 'The list (record id) to move to. Into a list of category `completed` completes the card; out of one re-opens it.' }),
    position: position.optional().meta({ description: 'Order within the list; default: the end.' }),
    board: z.string().min(1).optional().meta({ description: "Another board (record id), the list's board." }),
  })
  .meta({ id: 'MoveCardBody' })
export const CompleteCardBody = z
  .strictObject({
    completed: z.boolean().default(true).meta({
      description:
        "true completes the card and moves it to the board's first `completed` list, if any; false re-opens it and moves it out of a `completed` list.",
    }),
  })
  .meta({ id: 'CompleteCardBody' })

/** The card list's own parameters; they combine with `filter` by AND. */
export const CardListQuery = z.object({
  board: z.string().optional().meta({ description: 'Board id.' }),
  list: z.string().optional().meta({ description: 'List id.' }),
  completed: queryBool.optional(),
  archived: queryBool.optional(),
  trashed: queryBool.default(false).meta({ description: 'Trashed cards are hidden unless `trashed=true`.' }),
  state: z
    .string()
    .refine(
      (v) => v.split(',').every((x) => ListCategory.safeParse(x.trim()).success),
      'Use backlog, unstarted, started, completed or canceled, separated by commas.',
    )
    .transform((v) => v.split(',').map((x) => ListCategory.parse(x.trim())))
    .optional()
    .meta({ description: 'Comma-separated list categories: backlog, unstarted, started, completed, canceled.' }),
  assignee: z
    .string()
    .optional()
    .meta({ description: '`me` (assigned to you), `mine` (assigned to or created by you), `watching`, `none` (unassigned), or a user id.' }),
  team: z.string().optional().meta({ description: 'Group or team id (/v1/groups): cards assigned to any of its members.' }),
  saved_filter: z.string().min(1).optional().meta({
    description:
      "A saved filter you see (/v1/saved-filters): its filter AND this request's `filter` and other parameters; this request's `sort` and `expand` win, else the saved ones; one of a board lists that board's cards only. 404 for a saved filter you do not see.",
  }),
})
/** The card list's own query parameters (filter, sort and paging come on top; `filter` is read only to know whether the list is narrowed). */
export type CardListParams = z.infer<typeof CardListQuery> & { filter?: string }

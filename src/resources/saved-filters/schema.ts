// Saved filters: a named card filter (filter text, sort and expand as GET /v1/cards takes them), private or shared.
import { z } from 'zod'
import { name, orNull, UserRef } from '../../http/schemas.js'

export const SAVED_FILTER_RESOURCES = ['cards'] as const

const EXAMPLE = {
  id: '01JDSAVED000000000000000000',
  name: 'My urgent bugs',
  resource: 'cards',
  filter: 'priority >= 3 && tags ~ "bug" && assignees ~ "01JDUSER0000000000000000"',
  sort: '-due_date',
  expand: 'tags',
  board: '01JDBOARD0000000000000000',
  shared: false,
  created_by: { id: '01JDUSER0000000000000000', name: 'Ada' },
  created: '2026-11-21T12:00:00.000Z',
  updated: '2026-11-21T12:00:00.000Z',
}

export const SavedFilterSchema = z
  .strictObject({
    id: z.string(),
    name: z.string(),
    resource: z.enum(SAVED_FILTER_RESOURCES).meta({ description: 'What it filters: `cards` (applied with `GET /v1/cards?saved_filter=<id>`).' }),
    filter: z.string().meta({ description: 'The filter expression, in the language of `GET /v1/cards?filter=`; `""` matches every card.' }),
    sort: z.string().nullable().meta({ description: "The sort, as `GET /v1/cards?sort=` takes it; null: the list's default." }),
    expand: z.string().nullable().meta({ description: 'The relations to expand, as `GET /v1/cards?expand=` takes them; null: none.' }),
    board: z.string().nullable().meta({ description: 'The board it lists (and is shared on); null: across the boards the caller sees.' }),
    shared: z.boolean().meta({
      description: "false: its creator's only. true: every member of its board sees it, or the whole workspace when it has no board.",
    }),
    created_by: UserRef,
    created: z.string(),
    updated: z.string(),
  })
  .meta({ id: 'SavedFilter', example: EXAMPLE })
export type SavedFilterView = z.infer<typeof SavedFilterSchema>

const filter = z.string().meta({
  description:
    'A filter expression as `GET /v1/cards?filter=` takes it, parsed when saved (400 `invalid_filter` with the position of the problem); `""` or left out: every card.',
})
const sort = orNull(z.string().max(500)).meta({
  description: 'A sort as `GET /v1/cards?sort=` takes it, checked when saved (400 naming `sort`); null clears it.',
})
const expand = orNull(z.string().max(500)).meta({
  description: 'Relations as `GET /v1/cards?expand=` takes them, checked when saved (400 naming `expand`); null clears it.',
})
const board = orNull(z.string().min(1)).meta({
  description: 'A board you see (record id): the filter lists its cards only, and `shared` shares it with its members; null: no board.',
})
const shared = z.boolean().meta({
  description: 'Share it with the members of its board, or with the whole workspace when it has no board (owners and admins only; 422 naming `shared`).',
})

export const CreateSavedFilterBody = z
  .strictObject({
    name,
    resource: z.enum(SAVED_FILTER_RESOURCES).optional().meta({ description: 'What it filters; only `cards` (the default).' }),
    filter: filter.optional(),
    sort: sort.optional(),
    expand: expand.optional(),
    board: board.optional(),
    shared: shared.optional(),
  })
  .meta({
    id: 'CreateSavedFilterBody',
    examples: [
      { name: 'My urgent bugs', filter: 'priority >= 3 && tags ~ "bug"', sort: '-due_date', board: '01JDBOARD0000000000000000' },
      { name: 'Due this week', filter: 'due_date <= "2026-11-28" && completed = false', sort: 'due_date', shared: true },
    ],
  })
export type CreateSavedFilterInput = z.infer<typeof CreateSavedFilterBody>

export const UpdateSavedFilterBody = z
  .strictObject({
    name: name.optional(),
    filter: filter.optional(),
    sort: sort.optional(),
    expand: expand.optional(),
    board: board.optional(),
    shared: shared.optional(),
  })
  .meta({ id: 'UpdateSavedFilterBody', example: { filter: 'priority >= 2 && tags ~ "bug"', shared: true } })
export type UpdateSavedFilterInput = z.infer<typeof UpdateSavedFilterBody>

// Card templates: per board, what a new card starts with (POST /v1/cards { board, template }).
import { z } from 'zod'
import { name } from '../../http/schemas.js'
import { XattrValuesInput } from '../xattr/schema.js'

export const MAX_TEMPLATE_CHECKLIST = 100

export const CardTemplateSchema = z
  .strictObject({
    id: z.string(),
    board: z.string(),
    name: z.string(),
    title: z.string().meta({ description: "The new card's title when the create names none; empty: the create must name one." }),
    description: z.string(),
    priority: z.number().int().nullable().meta({ description: 'The priority (0 to 4) of the new card, or null for the default.' }),
    tags: z.array(z.string()).meta({ description: 'Tag ids of the board; a tag deleted since is skipped.' }),
    assignees: z.array(z.string()).meta({ description: 'User ids, members of the board; one no longer a member is skipped.' }),
    checklist: z.array(z.string()).meta({ description: 'The items of a checklist (named like the template) the new card gets; none when empty.' }),
    xattr: z.record(z.string(), z.unknown()).meta({ description: 'Custom field values by key; a field deleted since is skipped.' }),
    created: z.string(),
    updated: z.string(),
  })
  .meta({
    id: 'CardTemplate',
    example: {
      id: 'ctp_01J0000000000000000000000',
      board: 'brd_01J0000000000000000000000',
      name: 'Bug report',
      title: 'Bug: ',
      description: '## Steps to reproduce\n\n## Expected\n\n## Actual',
      priority: 3,
      tags: ['tag_01J0000000000000000000000'],
      assignees: [],
      checklist: ['Reproduced', 'Test written', 'Fixed'],
      xattr: { estimate: 2 },
      created: '2026-05-01T09:00:00.000Z',
      updated: '2026-05-01T09:00:00.000Z',
    },
  })
export type CardTemplateView = z.infer<typeof CardTemplateSchema>

const fields = {
  title: z.string().trim().max(500).meta({ description: 'Title of the new card, up to 500 characters (empty: none).' }),
  description: z.string().max(100_000).meta({ description: 'Description of the new card (Markdown), up to 100,000 characters.' }),
  priority: z.number().int().min(0).max(4).nullable().meta({ description: 'Priority 0 to 4, or null for the default.' }),
  tags: z.array(z.string().min(1)).max(50).meta({ description: 'Tag ids of the board, at most 50.' }),
  assignees: z.array(z.string().min(1)).max(50).meta({ description: 'User ids, members of the board, at most 50.' }),
  checklist: z
    .array(z.string().trim().min(1).max(500))
    .max(MAX_TEMPLATE_CHECKLIST)
    .meta({ description: `Checklist items, each 1 to 500 characters, at most ${MAX_TEMPLATE_CHECKLIST}.` }),
  xattr: XattrValuesInput,
}
const optional = Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, v.optional()])) as {
  [K in keyof typeof fields]: z.ZodOptional<(typeof fields)[K]>
}

export const CreateCardTemplateBody = z.strictObject({ board: z.string().min(1).meta({ description: 'The board (record id).' }), name, ...optional }).meta({
  id: 'CreateCardTemplateBody',
  example: { board: 'brd_01J0000000000000000000000', name: 'Bug report', title: 'Bug: ', priority: 3, checklist: ['Reproduced', 'Fixed'] },
})
export type CreateCardTemplateInput = z.infer<typeof CreateCardTemplateBody>
export const UpdateCardTemplateBody = z
  .strictObject({ name: name.optional(), ...optional })
  .meta({ id: 'UpdateCardTemplateBody', example: { checklist: ['Reproduced', 'Test written', 'Fixed'] } })
export type UpdateCardTemplateInput = z.infer<typeof UpdateCardTemplateBody>

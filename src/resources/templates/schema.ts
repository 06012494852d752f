// Board templates: workspace-level, a board's structure (and optionally cards) to build boards from.
import { z } from 'zod'
import { name } from '../../http/schemas.js'
import { BoardStructure } from '../boards/schema.js'

const EXAMPLE_CONTENT = {
  statuses: [
    { name: 'To do', category: 'unstarted', color: null },
    { name: 'Doing', category: 'started', color: '#3366ff' },
    { name: 'Done', category: 'completed', color: null },
  ],
  lists: [
    { name: 'To do', category: 'unstarted', status: 'To do' },
    { name: 'Doing', category: 'started', status: 'Doing' },
    { name: 'Done', category: 'completed', status: 'Done' },
  ],
  tags: [{ name: 'bug', color: '#ff0000' }],
  xattr_fields: [{ name: 'Estimate', key: 'estimate', type: 'number', required: false, options: [], rollup: null, formula: null }],
  cards: [{ title: 'Kick-off', description: '', priority: 0, list: 'To do', tags: [], xattr: { estimate: 1 } }],
}

export const TemplateSchema = z
  .strictObject({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    content: BoardStructure,
    created_by: z.string().nullable().meta({ description: 'The user (record id) who made it; null once they are gone.' }),
    created: z.string(),
    updated: z.string(),
  })
  .meta({
    id: 'Template',
    example: {
      id: 'tpl_01J0000000000000000000000',
      name: 'Sprint board',
      description: 'Our two-week sprint',
      content: EXAMPLE_CONTENT,
      created_by: 'usr_01J0000000000000000000000',
      created: '2026-05-01T09:00:00.000Z',
      updated: '2026-05-01T09:00:00.000Z',
    },
  })
export type TemplateView = z.infer<typeof TemplateSchema>

const description = z.string().max(20_000).meta({ description: 'Up to 20,000 characters.' })

export const CreateTemplateBody = z
  .strictObject({
    name,
    description: description.optional(),
    board: z.string().min(1).optional().meta({ description: 'A board (record id) you see to snapshot; give this or `content`.' }),
    include_cards: z.boolean().optional().meta({ description: 'With `board`: its cards (not in the trash) and their custom field values too.' }),
    content: BoardStructure.optional().meta({ description: 'The content itself; give this or `board`.' }),
  })
  .meta({
    id: 'CreateTemplateBody',
    examples: [
      { name: 'Sprint board', board: 'brd_01J0000000000000000000000', include_cards: true },
      { name: 'Sprint board', content: EXAMPLE_CONTENT },
    ],
  })
export type CreateTemplateInput = z.infer<typeof CreateTemplateBody>
export const UpdateTemplateBody = z
  .strictObject({ name: name.optional(), description: description.optional(), content: BoardStructure.optional() })
  .meta({ id: 'UpdateTemplateBody', example: { name: 'Sprint board v2' } })
export type UpdateTemplateInput = z.infer<typeof UpdateTemplateBody>

// The MCP tools of the milestones family: listing, creating and changing milestones.
import { z } from 'zod'
import { type Tool, pageArgs, sortArg, asQuery, READ, fieldsOf, fieldsFrom, recordId, write } from '../../mcp/tools.js'
import { MILESTONE_FILTER, MILESTONE_LIST } from './query.js'
import { CreateMilestoneBody, UpdateMilestoneBody } from './schema.js'

export const MILESTONE_TOOLS: readonly Tool[] = [
  {
    name: 'list_milestones',
    title: 'List milestones',
    description: `Milestones of the boards you can see, each with its progress { done, total } of cards, as a page. Give \`board\` for one board's. Filter fields: ${fieldsOf(MILESTONE_FILTER)} (state: open, closed), e.g. \`state = "open"\`; the grammar is the one described on list_cards. Cards of a milestone: list_cards with \`milestone = "<id>"\`.`,
    input: z.strictObject({
      board: z.string().min(1).optional().describe("Only this board's milestones (board record id)."),
      filter: z.string().optional().describe('Filter expression.'),
      sort: sortArg(MILESTONE_LIST),
      ...pageArgs,
    }),
    annotations: READ,
    run: (call, args) => call('listMilestones', { query: asQuery(args) }),
  },
  {
    name: 'create_milestone',
    title: 'Create a milestone',
    description: 'Creates a milestone on a board. Cards join it with update_card { milestone: "<id>" } (or milestone on create_card).',
    input: fieldsFrom(CreateMilestoneBody),
    annotations: write({ destructive: false, idempotent: false }),
    run: (call, body) => call('createMilestone', { body }),
  },
  {
    name: 'update_milestone',
    title: 'Update a milestone',
    description: 'Changes the fields given: name, description, due_date, or state (closed / open). Closing a milestone changes none of its cards.',
    input: fieldsFrom(UpdateMilestoneBody, { id: recordId('milestone') }),
    annotations: write({ destructive: false, idempotent: true }),
    run: (call, { id, ...body }) => call('updateMilestone', { params: { id }, body }),
  },
]

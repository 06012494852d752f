// The MCP tool of the lists family: listing lists.
import { z } from 'zod'
import { type Tool, pageArgs, sortArg, asQuery, READ, fieldsOf } from '../../mcp/tools.js'
import { LIST_FILTER, LIST_LIST } from './query.js'

export const LIST_TOOLS: readonly Tool[] = [
  {
    name: 'list_lists',
    title: 'List lists',
    description: `Lists (the columns of a board) you can see, as a page. Give \`board\` for one board's lists, in board order. Filter fields: ${fieldsOf(LIST_FILTER)} (category: backlog, unstarted, started, completed, canceled), e.g. \`category = "started"\`; the grammar is the one described on list_cards.`,
    input: z.strictObject({
      board: z.string().min(1).optional().describe("Only this board's lists (board record id)."),
      filter: z.string().optional().describe('Filter expression.'),
      sort: sortArg(LIST_LIST),
      ...pageArgs,
    }),
    annotations: READ,
    run: (call, args) => call('listLists', { query: asQuery(args) }),
  },
]

// The MCP tool of the boards family: listing boards.
import { z } from 'zod'
import { type Tool, pageArgs, sortArg, expandArg, asQuery, READ, fieldsOf } from '../../mcp/tools.js'
import { BOARD_FILTER, BOARD_LIST } from './query.js'

export const BOARD_TOOLS: readonly Tool[] = [
  {
    name: 'list_boards',
    title: 'List boards',
    description: `Boards you can see, as a page { page, perPage, totalItems, totalPages, items }. Filter fields: ${fieldsOf(BOARD_FILTER)}; the grammar is the one described on list_cards.`,
    input: z.strictObject({
      filter: z.string().optional().describe('Filter expression, e.g. `name ~ "launch"`.'),
      sort: sortArg(BOARD_LIST),
      expand: expandArg(BOARD_LIST),
      ...pageArgs,
    }),
    annotations: READ,
    run: (call, args) => call('listBoards', { query: asQuery(args) }),
  },
]

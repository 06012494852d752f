// The MCP tools of the cards family: listing, reading, creating, changing, moving and completing cards.
import { z } from 'zod'
import { type Tool, filterHelp, pageArgs, sortArg, expandArg, recordId, fieldsFrom, asQuery, READ, write } from '../../mcp/tools.js'
import { notFound } from '../../errors.js'
import { quoteFilterString } from '../../filter/index.js'
import { CARD_FILTER, CARD_LIST } from './query.js'
import { CreateCardBody, MoveCardBody, UpdateCardBody } from './schema.js'

/** "LCH-12": a card key (board prefix, dash, number) rather than a record id. */
const CARD_KEY = /^[A-Za-z][A-Za-z0-9]*-\d+$/

export const CARD_TOOLS: readonly Tool[] = [
  {
    name: 'list_cards',
    title: 'List cards',
    description: `Cards (tasks) on the boards you can see, as a page { page, perPage, totalItems, totalPages, items }; totalItems counts the whole filter. Trashed cards are left out. Default order: position in the list, then created. ${filterHelp(CARD_FILTER)}`,
    input: z.strictObject({
      filter: z.string().optional().describe('Filter expression, e.g. `priority >= 3 && tags ~ "bug"`.'),
      board: z.string().min(1).optional().describe('Only cards of this board (record id).'),
      list: z.string().min(1).optional().describe('Only cards of this list (record id).'),
      sort: sortArg(CARD_LIST),
      expand: expandArg(CARD_LIST),
      ...pageArgs,
    }),
    annotations: READ,
    run: (call, args) => call('listCards', { query: asQuery(args) }),
  },
  {
    name: 'get_card',
    title: 'Get a card',
    description: 'One card by its record id or by its key (the board prefix and number, e.g. "LCH-12").',
    input: z.strictObject({
      id: z.string().min(1).describe('The card\'s record id, or its key such as "LCH-12".'),
      expand: expandArg(CARD_LIST),
    }),
    annotations: READ,
    run: async (call, { id, expand }: { id: string; expand?: string }) => {
      if (!CARD_KEY.test(id)) return call('getCard', { params: { id }, query: asQuery({ expand }) })
      const page = (await call('listCards', { query: asQuery({ filter: `key = ${quoteFilterString(id)}`, per_page: 1, expand }) })) as { items: unknown[] }
      if (page.items.length === 0) throw notFound(`No card with the key ${id} on a board you can see.`)
      return { card: page.items[0] }
    },
  },
  {
    name: 'create_card',
    title: 'Create a card',
    description:
      "Creates a card (task) on a board. `list` defaults to the board's first list. With an `idempotency_key` already used on the board, the existing card comes back with existing: true and nothing is created. With `template` (a card template id of the board, see list_card_templates) the card starts from it, the fields given winning, and `title` may be left out.",
    input: fieldsFrom(CreateCardBody),
    annotations: write({ destructive: false, idempotent: false }),
    run: (call, body) => call('createCard', { body }),
  },
  {
    name: 'update_card',
    title: 'Update a card',
    description:
      'Changes the fields given (the others stay). `assignees`, `tags` and `watchers` replace the whole set. To move a card use move_card; to complete it, complete_card.',
    input: fieldsFrom(UpdateCardBody, { id: recordId('card') }),
    annotations: write({ destructive: true, idempotent: true }),
    run: (call, { id, ...body }) => call('updateCard', { params: { id }, body }),
  },
  {
    name: 'move_card',
    title: 'Move a card',
    description:
      'Moves a card to a list (record id), optionally on another board (the card then gets a key of that board) and at a position. A list of category completed completes the card; moving out of one re-opens it.',
    input: fieldsFrom(MoveCardBody, { id: recordId('card') }),
    annotations: write({ destructive: false, idempotent: true }),
    run: (call, { id, ...body }) => call('moveCard', { params: { id }, body }),
  },
  {
    name: 'complete_card',
    title: 'Complete a card',
    description:
      "Marks a card completed, which moves it to its board's first list of category completed when there is one (or reopens it with completed: false, which moves it out of a completed list to the first unstarted, started or backlog list).",
    input: z.strictObject({ id: recordId('card'), completed: z.boolean().default(true).describe('false reopens the card.') }),
    annotations: write({ destructive: false, idempotent: true }),
    run: (call, { id, ...body }) => call('completeCard', { params: { id }, body }),
  },
]

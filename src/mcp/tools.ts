// The MCP tools (API-DECISIONS §12). Each tool runs REST routes by operationId through `runRoute`: the route's own
// schemas, permission check and service, so a tool can never do what the API would refuse (or answer differently).
import { z } from 'zod'
import type { ToolAnnotations } from '@modelcontextprotocol/server'
import { CreateCardBody, MoveCardBody, UpdateCardBody } from '../resources/cards/schema.js'
import { CreateCommentBody } from '../resources/comments/schema.js'
import { CreateNoteBody } from '../resources/notes/schema.js'
import { StartTimerBody } from '../resources/time-entries/schema.js'
import { CreateKickoffBody } from '../resources/agent-kickoffs/schema.js'
import { SEARCH_TYPES } from '../resources/search/schema.js'
import { notFound } from '../errors.js'
import { type FilterResource, quoteFilterString } from '../filter/index.js'
import type { ListSpec } from '../query/list-page.js'
import { BOARD_FILTER, BOARD_LIST } from '../resources/boards/query.js'
import { CARD_FILTER, CARD_LIST } from '../resources/cards/query.js'
import { LIST_FILTER, LIST_LIST } from '../resources/lists/query.js'

/** Runs the REST route with this operationId as the caller; resolves to its reply body. */
export type CallRoute = (operationId: string, input: { params?: object; query?: object; body?: unknown }) => Promise<unknown>

export interface Tool {
  name: string
  title: string
  description: string
  input: z.ZodObject
  annotations: ToolAnnotations
  run: (call: CallRoute, args: any) => Promise<unknown>
}

// Field, sort and relation names come from the families' own specs, so the descriptions cannot drift from the API.
const fieldsOf = (resource: FilterResource) => Object.keys(resource.fields).join(', ')

const FILTER_HELP = [
  'Filter grammar: comparisons `field op value` joined by `&&` (binds tighter) and `||`, parentheses and `!` negation.',
  'Operators: = != > >= < <= ~ (case-insensitive substring on text; membership by id on assignees and watchers, by id or name on tags) and !~; people by name through .name (assignees.name = "Ana").',
  'Values: double-quoted strings (escape only \\" and \\\\), numbers, true, false, null; dates as "YYYY-MM-DD" or full ISO 8601.',
  `Card fields: ${fieldsOf(CARD_FILTER)} (state is the list's category: backlog, unstarted, started, completed, canceled); dot paths follow relations (board.name, list.name, list.category, assignees.name, created_by.email).`,
  'Limits: 3,500 characters, 200 comparisons, nesting depth 32. A bad filter is an error naming the 1-based position, e.g. `at 12: expected a value after "="`.',
  'Examples: `priority >= 3 && tags ~ "bug"`; `state = "started" && due_date < "2026-12-01" && !(assignees.name = "Ana")`.',
].join(' ')

const pageArgs = {
  page: z.number().int().min(1).optional().describe('Page number, from 1 (default 1).'),
  per_page: z.number().int().min(1).max(500).optional().describe('Records per page, 1 to 500 (default 30).'),
}
const sortArg = (spec: ListSpec) =>
  z
    .string()
    .optional()
    .describe(`Comma-separated sort fields, a leading - for descending (default ${spec.defaultSort}). Sortable: ${Object.keys(spec.sort).join(', ')}.`)
const expandArg = (spec: ListSpec) =>
  z
    .string()
    .optional()
    .describe(`Comma-separated relations to return inline: ${spec.expand.join(', ')}.`)
const recordId = (what: string) => z.string().min(1).describe(`The ${what}'s record id (the "id" field).`)

/**
 * A route body's fields as a tool's input, inlined (the body schema's document name would make the tool's schema a
 * `$ref`) and closed; its whole-body rules still apply, since the route parses the arguments again.
 */
const fieldsFrom = (body: z.ZodObject, extra: z.ZodRawShape = {}) => z.strictObject({ ...extra, ...body.shape })

/** Tool arguments → a route's query string values (the routes read text, as from a URL). */
const asQuery = (args: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(args).flatMap(([k, v]) => (v === undefined ? [] : [[k, Array.isArray(v) ? v.join(',') : String(v)]])))

const READ: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }
const write = (hints: { destructive: boolean; idempotent: boolean; openWorld?: boolean }): ToolAnnotations => ({
  readOnlyHint: false,
  destructiveHint: hints.destructive,
  idempotentHint: hints.idempotent,
  openWorldHint: hints.openWorld ?? false,
})

/** "LCH-12": a card key (board prefix, dash, number) rather than a record id. */
const CARD_KEY = /^[A-Za-z][A-Za-z0-9]*-\d+$/

export const TOOLS: readonly Tool[] = [
  {
    name: 'whoami',
    title: 'Who am I',
    description: 'The user this token belongs to (id, name, email, role, kind). Use it to learn your own user id.',
    input: z.strictObject({}),
    annotations: READ,
    run: (call) => call('getMe', {}),
  },
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
  {
    name: 'list_cards',
    title: 'List cards',
    description: `Cards (tasks) on the boards you can see, as a page { page, perPage, totalItems, totalPages, items }; totalItems counts the whole filter. Trashed cards are left out. Default order: position in the list, then created. ${FILTER_HELP}`,
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
      "Creates a card (task) on a board. `list` defaults to the board's first list. With an `idempotency_key` already used on the board, the existing card comes back with existing: true and nothing is created.",
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
    description: 'Moves a card to a list (record id), optionally on another board (the card then gets a key of that board) and at a position.',
    input: fieldsFrom(MoveCardBody, { id: recordId('card') }),
    annotations: write({ destructive: false, idempotent: true }),
    run: (call, { id, ...body }) => call('moveCard', { params: { id }, body }),
  },
  {
    name: 'complete_card',
    title: 'Complete a card',
    description: 'Marks a card completed (or reopens it with completed: false).',
    input: z.strictObject({ id: recordId('card'), completed: z.boolean().default(true).describe('false reopens the card.') }),
    annotations: write({ destructive: false, idempotent: true }),
    run: (call, { id, ...body }) => call('completeCard', { params: { id }, body }),
  },
  {
    name: 'add_comment',
    title: 'Add a comment',
    description:
      'Comments on a card as you, in Markdown. `@name` mentions a board member (their name or the part of their email before the @), who is told in their inbox.',
    input: fieldsFrom(CreateCommentBody),
    annotations: write({ destructive: false, idempotent: false }),
    run: (call, body) => call('createComment', { body }),
  },
  {
    name: 'create_note',
    title: 'Create a note',
    description: 'Creates a note (Markdown). On a board (or a card) its members see it; on neither, only you (and owners and admins).',
    input: fieldsFrom(CreateNoteBody),
    annotations: write({ destructive: false, idempotent: false }),
    run: (call, body) => call('createNote', { body }),
  },
  {
    name: 'start_timer',
    title: 'Start a timer',
    description: 'Starts your timer on a card; a timer already running is stopped first and kept as a time entry.',
    input: fieldsFrom(StartTimerBody),
    annotations: write({ destructive: false, idempotent: false }),
    run: (call, body) => call('startTimer', { body }),
  },
  {
    name: 'stop_timer',
    title: 'Stop the timer',
    description: 'Stops your running timer; the time becomes a time entry on its card.',
    input: z.strictObject({}),
    annotations: write({ destructive: false, idempotent: false }),
    run: (call) => call('stopTimer', {}),
  },
  {
    name: 'kickoff_agent',
    title: 'Kick off an agent',
    description:
      "Hands a card to an AI agent that is a member of the card's board, or to an agent workflow (default: the board's default workflow). Delivered at once when the agent can be reached, otherwise queued with retries. `powers` narrows delivery to auto_start (the agent's runner at its wake URL), local_access (its owner's desktop app) or service_ai (a workspace AI turn); `model` and `effort` are hints for a desktop agent.",
    input: fieldsFrom(CreateKickoffBody),
    annotations: write({ destructive: false, idempotent: false, openWorld: true }),
    run: (call, body) => call('createAgentKickoff', { body }),
  },
  {
    name: 'search',
    title: 'Search',
    description:
      'Looks for a text in card titles and descriptions, comment bodies and note titles and bodies you can see (case-insensitive substring), most recently updated first, a page per type. For precise queries use list_cards with a filter.',
    input: z.strictObject({
      q: z.string().min(1).max(200).describe('The text to look for.'),
      types: z.array(z.enum(SEARCH_TYPES)).optional().describe('Which record types to search (default all).'),
      board: z.string().min(1).optional().describe('Only records of this board (record id).'),
      page: z.number().int().min(1).optional().describe('Page number, from 1 (default 1).'),
      per_page: z.number().int().min(1).max(500).optional().describe('Results per type, 1 to 500 (default 30).'),
    }),
    annotations: READ,
    run: (call, args) => call('search', { query: asQuery(args) }),
  },
]

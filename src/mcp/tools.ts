// What the MCP tools share: the tool shape, argument helpers and the filter help; each family brings its own tools
// (src/resources/<family>/mcp.ts). A tool runs REST routes by operationId through `runRoute`: the route's own schemas,
// permission check and service, so a tool can never do what the API would refuse (or answer differently).
import { z } from 'zod'
import type { ToolAnnotations } from '@modelcontextprotocol/server'
import type { FilterResource } from '../filter/index.js'
import type { ListSpec } from '../query/list-page.js'

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
export const fieldsOf = (resource: FilterResource) => Object.keys(resource.fields).join(', ')

/** The filter grammar in short, for the tool that filters cards (its card fields given by the cards family). */
export const filterHelp = (cards: FilterResource) =>
  [
    'Filter grammar: comparisons `field op value` joined by `&&` (binds tighter) and `||`, parentheses and `!` negation.',
    'Operators: = != > >= < <= ~ (case-insensitive substring on text; membership by id on assignees and watchers, by id or name on tags) and !~; people by name through .name (assignees.name = "Ana").',
    'Values: double-quoted strings (escape only \\" and \\\\), numbers, true, false, null; dates as "YYYY-MM-DD" or full ISO 8601.',
    `Card fields: ${fieldsOf(cards)} (state is the list's category: backlog, unstarted, started, completed, canceled); dot paths follow relations (board.name, list.name, list.category, assignees.name, created_by.email).`,
    'Limits: 3,500 characters, 200 comparisons, nesting depth 32. A bad filter is an error naming the 1-based position, e.g. `at 12: expected a value after "="`.',
    'Examples: `priority >= 3 && tags ~ "bug"`; `state = "started" && due_date < "2026-12-01" && !(assignees.name = "Ana")`.',
  ].join(' ')

/** The most records one page holds, over REST as over MCP, and how many it holds unless asked. */
export const MAX_PER_PAGE = 500
const DEFAULT_PER_PAGE = 30

export const pageArgs = {
  page: z.number().int().min(1).optional().describe('Page number, from 1 (default 1).'),
  per_page: z.number().int().min(1).max(MAX_PER_PAGE).optional().describe('Records per page, 1 to 500 (default 30).'),
}
export const sortArg = (spec: ListSpec) =>
  z
    .string()
    .optional()
    .describe(`Comma-separated sort fields, a leading - for descending (default ${spec.defaultSort}). Sortable: ${Object.keys(spec.sort).join(', ')}.`)
/** The most relations one list may expand inline, over the tools made so far (every family's, once they are loaded). */
let widestExpansion = 0

export const expandArg = (spec: ListSpec) => {
  widestExpansion = Math.max(widestExpansion, spec.expand.length)
  return z
    .string()
    .optional()
    .describe(`Comma-separated relations to return inline: ${spec.expand.join(', ')}.`)
}

/**
 * What one tool call may cost, as the REST cost of a request: the records it may answer (a page of `per_page`, default
 * 30, for a tool that pages; else one), each once more per relation it expands inline.
 */
export function callCost(tool: Tool, args: unknown): number {
  const a = (typeof args === 'object' && args !== null ? args : {}) as { per_page?: unknown; expand?: unknown }
  const pages = 'per_page' in tool.input.shape
  const rows = pages ? (typeof a.per_page === 'number' && a.per_page >= 1 ? Math.min(a.per_page, MAX_PER_PAGE) : DEFAULT_PER_PAGE) : 1
  const expansions =
    typeof a.expand === 'string'
      ? new Set(
          a.expand
            .split(',')
            .map((e) => e.trim())
            .filter(Boolean),
        ).size
      : 0
  return rows * (1 + expansions)
}

/** The most one REST request may cost (a full page with every relation expanded), and so a whole batch of calls. */
export const batchCostLimit = (): number => MAX_PER_PAGE * (1 + widestExpansion)
export const recordId = (what: string) => z.string().min(1).describe(`The ${what}'s record id (the "id" field).`)

/**
 * A route body's fields as a tool's input, inlined (the body schema's document name would make the tool's schema a
 * `$ref`) and closed; its whole-body rules still apply, since the route parses the arguments again.
 */
export const fieldsFrom = (body: z.ZodObject, extra: z.ZodRawShape = {}) => z.strictObject({ ...extra, ...body.shape })

/** Tool arguments → a route's query string values (the routes read text, as from a URL). */
export const asQuery = (args: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(args).flatMap(([k, v]) => (v === undefined ? [] : [[k, Array.isArray(v) ? v.join(',') : String(v)]])))

export const READ: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }
export const write = (hints: { destructive: boolean; idempotent: boolean; openWorld?: boolean }): ToolAnnotations => ({
  readOnlyHint: false,
  destructiveHint: hints.destructive,
  idempotentHint: hints.idempotent,
  openWorldHint: hints.openWorld ?? false,
})

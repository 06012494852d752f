// Public API of the filter language: parse, validate and compile a filter against a resource's field map.
//
//   parseFilter(input)                  → FilterNode | null   syntax only; null for an empty or blank filter
//   filterExpression(resource, input, { anchored? })   → ((eb) => Expression<SqlBool>) | null
//       Parses and checks every field, operator and value against the resource's field map right away, so a bad
//       filter throws before any query is built. Use:
//         const f = filterExpression('cards', req.query.filter)
//         let q = qb.selectFrom('cards').selectAll()      // base table without an alias
//         if (f) q = q.where(f)
//   applyFilter(query, resource, input)  → the same select query with the filter added (unchanged when empty)
//   printFilter(node), quoteFilterString(value)   canonical text; safe quoting of values from outside
//   registerFilterResource(name, map)             field maps of resources added later (see fields.ts)
//
// Every error is a FilterError (answered as HTTP 400 `invalid_filter`) with the message `at <N>: <reason>`, where N is the 1-based
// position (in UTF-16 code units) of the offending token's first character, or length + 1 at the end of the input.
// Limits: 3,500 characters, 200 comparisons, nesting depth 32 (each "(" and "!"), 4 relation hops (dots).
import type { Expression, ExpressionBuilder, SelectQueryBuilder, SqlBool } from 'kysely'
import type { FilterNode } from './ast.js'
import { compileFilter } from './compile.js'
import { filterResource } from './fields.js'
import { parse } from './parser.js'
import { comparisonCheck } from './validate.js'

export type { CompareOp, Comparison, FilterNode, FilterValue } from './ast.js'
export type { FieldDef, FilterResource, KeyedField, MultiField, ScalarField } from './fields.js'
export { field, registerFilterResource } from './fields.js'
export { FILTER_LIMITS } from './parser.js'
export { printFilter, quoteFilterString } from './print.js'
export { SQL_OP } from './compile.js'

export type FilterFactory = (eb: ExpressionBuilder<any, any>) => Expression<SqlBool>

export function parseFilter(input: string): FilterNode | null {
  return parse(input)
}

/** `resource` names a field map (cards, boards, lists, users, tokens, tags, files, or a registered one). */
export function filterExpression(resource: string, input: string | null | undefined, opts: { anchored?: boolean } = {}): FilterFactory | null {
  filterResource(resource) // an unknown resource is a programming error: plain Error, before the input is looked at
  if (input == null) return null
  const node = parse(input, comparisonCheck(resource))
  return node && ((eb) => compileFilter(eb, resource, node, opts.anchored))
}

/** Shorthand for list routes: `applyFilter(qb.selectFrom('cards'), 'cards', query.filter)`. */
export function applyFilter<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  resource: string,
  input: string | null | undefined,
  opts: { anchored?: boolean } = {},
): SelectQueryBuilder<DB, TB, O> {
  const f = filterExpression(resource, input, opts)
  return f ? query.where(f as never) : query
}

// Checks each parsed comparison against a resource's field map, so errors can point at the field, operator or value.
import type { FilterValue } from './ast.js'
import { parseDateLiteral } from './dates.js'
import { DEFAULT_OPS, resolveField, type ResolvedField } from './fields.js'
import { FILTER_LIMITS, type ComparisonCheck } from './parser.js'
import { failAt } from './tokenizer.js'

const found = (v: FilterValue) => (typeof v === 'string' ? 'a string' : typeof v === 'number' ? `number ${v}` : String(v))
const shown = (field: string) => JSON.stringify(field.length > 40 ? `${field.slice(0, 40)}…` : field)

/**
 * A comparison's share of the filter's cost: every relation it crosses is a join or subquery per candidate row, and a
 * many-valued one (members, tags, a list's cards) reaches many rows. Negations cost the same: they compile to NOT EXISTS.
 */
const costOf = (r: ResolvedField): number =>
  1 + r.hops.reduce((sum, h) => sum + (h.kind === 'one' ? 1 : 4), 0) + (r.leaf.type === 'multi' || r.leaf.type === 'keyed' ? 4 : 0)

/** Checks the comparisons of one filter, in order; the cost budget counts across all of them. */
export function comparisonCheck(resource: string): ComparisonCheck {
  let cost = 0
  return (node, at) => {
    const r = resolveField(resource, node.field)
    if (typeof r === 'string') failAt(at.field, r.length > 400 ? `${r.slice(0, 400)}…` : r)
    cost += costOf(r)
    if (cost > FILTER_LIMITS.cost) {
      failAt(
        at.field,
        `too expensive: the relations this filter crosses cost more than ${FILTER_LIMITS.cost} (each comparison 1, each dot to a single record 1, each many-valued field 4); use fewer relation paths or comparisons`,
      )
    }
    const { leaf } = r
    const name = shown(node.field)
    const ops = leaf.ops ?? DEFAULT_OPS[leaf.type]
    if (!ops.includes(node.op)) {
      failAt(at.op, `operator "${node.op}" does not apply to ${name}; use ${ops.map((o) => `"${o}"`).join(', ')}`)
    }
    const v = node.value
    if (leaf.type === 'keyed') {
      const problem = leaf.check(node.op, v)
      if (problem) failAt(at.value, `${name} ${problem}`)
      return
    }
    if (v === null) {
      if (node.op !== '=' && node.op !== '!=') failAt(at.value, 'null goes only with "=" or "!="')
      // Through a multi-value relation "= null" has no clear meaning (no member? a member without the value?).
      if (r.many) failAt(at.value, `${name} goes through a multi-value field and cannot be compared with null`)
      return
    }
    if (leaf.type === 'number') {
      if (typeof v !== 'number') failAt(at.value, `${name} takes a number, found ${found(v)}`)
      if (leaf.integer && !Number.isSafeInteger(v)) failAt(at.value, `${name} takes a whole number, found ${v}`)
      return
    }
    if (leaf.type === 'boolean') {
      if (typeof v !== 'boolean') failAt(at.value, `${name} takes true or false, found ${found(v)}`)
      return
    }
    if (typeof v !== 'string') failAt(at.value, `${name} takes a string in double quotes, found ${found(v)}`)
    if (leaf.type === 'enum' && !leaf.values!.includes(v)) {
      failAt(at.value, `${name} must be one of ${leaf.values!.map((x) => `"${x}"`).join(', ')}`)
    }
    if (leaf.type === 'date' && !parseDateLiteral(v)) {
      failAt(at.value, `${name} takes a date as "YYYY-MM-DD" or an ISO 8601 date-time such as "2026-05-01T12:00:00Z"`)
    }
  }
}

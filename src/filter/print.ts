// FilterNode → canonical filter string; parsing the output gives back an equal tree.
import type { FilterNode, FilterValue } from './ast.js'

export function printFilter(node: FilterNode): string {
  switch (node.kind) {
    case 'compare':
      return `${node.field} ${node.op} ${printValue(node.value)}`
    case 'not':
      return `!${node.item.kind === 'compare' || node.item.kind === 'not' ? printFilter(node.item) : `(${printFilter(node.item)})`}`
    case 'and':
      // A nested && keeps its parentheses so it re-parses as the same separate node.
      return node.items.map((i) => (i.kind === 'and' || i.kind === 'or' ? `(${printFilter(i)})` : printFilter(i))).join(' && ')
    case 'or':
      return node.items.map((i) => (i.kind === 'or' ? `(${printFilter(i)})` : printFilter(i))).join(' || ')
  }
}

/** Quotes and escapes a string so it can be placed in a filter (values from outside must be quoted and escaped). */
export function quoteFilterString(value: string): string {
  return `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`
}

export function printValue(value: FilterValue): string {
  if (typeof value === 'string') return quoteFilterString(value)
  if (typeof value === 'number') return plainNumber(value)
  return String(value)
}

/** The grammar has no exponents, so 1e+21 or 1.5e-7 must be written out in full. */
function plainNumber(n: number): string {
  const s = String(n)
  const e = s.indexOf('e')
  if (e < 0) return s
  const neg = s[0] === '-'
  const mantissa = s.slice(neg ? 1 : 0, e)
  const dot = mantissa.indexOf('.')
  const digits = mantissa.replace('.', '')
  const point = (dot < 0 ? mantissa.length : dot) + Number(s.slice(e + 1))
  const body =
    point <= 0
      ? `0.${'0'.repeat(-point)}${digits}`
      : point >= digits.length
        ? digits + '0'.repeat(point - digits.length)
        : `${digits.slice(0, point)}.${digits.slice(point)}`
  return (neg ? '-' : '') + body
}

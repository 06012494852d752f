// Recursive-descent parser: filter string → FilterNode, enforcing the size limits (length, comparisons, nesting depth).
//
//   filter  := or EOF                 (empty or blank input means "no filter": null)
//   or      := and ("||" and)*
//   and     := unary ("&&" unary)*    (&& binds tighter than ||)
//   unary   := "!"* primary
//   primary := "(" or ")" | FIELD OP VALUE
//
// Recursion happens only at "(", and nesting is capped, so the stack stays shallow and parsing is linear.
import type { Comparison, ComparisonPositions, FilterNode } from './ast.js'
import { describe, failAt, Tokenizer, type Token } from './tokenizer.js'

export const FILTER_LIMITS = {
  /** Characters (UTF-16 code units) in the whole filter string. */
  length: 3500,
  comparisons: 200,
  /** Parentheses and negations that enclose a comparison. */
  depth: 32,
  /** Dots in a field path. */
  hops: 4,
  /** What the comparisons may cost together: 1 each, plus 1 per to-one relation and 4 per many-valued one they cross. */
  cost: 400,
} as const

/** Called for every comparison as soon as it is parsed; throws to reject it (unknown field, wrong value type). */
export type ComparisonCheck = (node: Comparison, at: ComparisonPositions) => void

export function parse(input: string, check?: ComparisonCheck): FilterNode | null {
  if (input.length > FILTER_LIMITS.length) {
    failAt(FILTER_LIMITS.length + 1, `filter is longer than ${FILTER_LIMITS.length} characters`)
  }
  const parser = new Parser(new Tokenizer(input), check)
  if (parser.atEnd()) return null
  return parser.filter()
}

class Parser {
  private comparisons = 0
  private depth = 0

  constructor(
    private readonly tokens: Tokenizer,
    private readonly check?: ComparisonCheck,
  ) {}

  atEnd(): boolean {
    return this.tokens.peek().kind === 'eof'
  }

  filter(): FilterNode {
    const node = this.or()
    const t = this.tokens.peek()
    if (t.kind === ')') failAt(t.pos, 'unexpected ")" without a matching "("')
    if (t.kind !== 'eof') failAt(t.pos, `expected "&&", "||" or end of filter, found ${describe(t)}`)
    return node
  }

  /** `after` names the token before this expression, so a missing operand can be reported precisely. */
  private or(after?: string): FilterNode {
    const items = [this.and(after)]
    while (this.tokens.peek().kind === '||') {
      this.tokens.next()
      items.push(this.and('"||"'))
    }
    return items.length === 1 ? items[0] : { kind: 'or', items }
  }

  private and(after?: string): FilterNode {
    const items = [this.unary(after)]
    while (this.tokens.peek().kind === '&&') {
      this.tokens.next()
      items.push(this.unary('"&&"'))
    }
    return items.length === 1 ? items[0] : { kind: 'and', items }
  }

  /** Negations are counted in a loop rather than by recursion; each one is a nesting level. */
  private unary(after?: string): FilterNode {
    let nots = 0
    while (this.tokens.peek().kind === '!') {
      const bang = this.tokens.next()
      this.enter(bang)
      nots++
      after = '"!"'
    }
    let node = this.primary(after)
    for (; nots > 0; nots--) {
      node = { kind: 'not', item: node }
      this.depth--
    }
    return node
  }

  private primary(after?: string): FilterNode {
    const t = this.tokens.next()
    if (t.kind === '(') return this.group(t)
    if (t.kind === 'field') return this.comparison(t)
    if (t.kind === 'literal') failAt(t.pos, `expected a field name, found ${describe(t)}`)
    if (t.kind === ')' && after === '"("') failAt(t.pos, 'empty group "()"')
    return failAt(t.pos, `expected a condition${after ? ` after ${after}` : ''}, found ${describe(t)}`)
  }

  private group(open: Token): FilterNode {
    this.enter(open)
    const node = this.or('"("')
    const close = this.tokens.next()
    if (close.kind !== ')') {
      failAt(close.pos, `expected ")" to close the "(" at ${open.pos}, found ${describe(close)}`)
    }
    this.depth--
    return node
  }

  private enter(t: Token): void {
    if (++this.depth > FILTER_LIMITS.depth) failAt(t.pos, `nesting deeper than ${FILTER_LIMITS.depth} levels`)
  }

  private comparison(field: Token): Comparison {
    if (++this.comparisons > FILTER_LIMITS.comparisons) {
      failAt(field.pos, `more than ${FILTER_LIMITS.comparisons} comparisons`)
    }
    let dots = 0
    for (const ch of field.text) if (ch === '.') dots++
    if (dots > FILTER_LIMITS.hops) {
      failAt(field.pos, `field ${describe(field)} has more than ${FILTER_LIMITS.hops} relation hops`)
    }
    const op = this.tokens.next()
    if (op.kind !== 'op') failAt(op.pos, `expected an operator after ${describe(field)}, found ${describe(op)}`)
    const v = this.tokens.next()
    if (v.kind !== 'string' && v.kind !== 'number' && v.kind !== 'literal') {
      const hint = v.kind === 'field' ? ' (strings must be in double quotes)' : ''
      failAt(v.pos, `expected a value after "${op.text}", found ${describe(v)}${hint}`)
    }
    const node: Comparison = { kind: 'compare', field: field.text, op: op.text, value: v.value }
    this.check?.(node, { field: field.pos, op: op.pos, value: v.pos })
    return node
  }
}

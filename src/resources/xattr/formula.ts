// Formulas of custom fields: a small grammar of their own, parsed when a field is saved and evaluated when a card is read.
//
//   expr    := term (("+" | "-") term)*
//   term    := unary (("*" | "/") unary)*
//   unary   := "-" unary | primary
//   primary := NUMBER | KEY | FN "(" expr ("," expr)* ")" | "(" expr ")"
//   FN      := "min" | "max" | "round"      (round takes one argument, or two: the value and 0 to 10 decimals)
//
// A KEY names a number or rollup field of the same board; nothing else has a name. Names are looked up in a Map, never
// on an object, so `constructor` or `__proto__` is just an unknown key. Nothing is ever evaluated as code. Division by
// zero, a missing input or a result that is not a finite number gives null.

export const FORMULA_LIMITS = { length: 500, depth: 32, tokens: 300 } as const

export type FormulaNode =
  | { k: 'num'; v: number }
  | { k: 'ref'; key: string }
  | { k: 'neg'; a: FormulaNode }
  | { k: 'bin'; op: '+' | '-' | '*' | '/'; a: FormulaNode; b: FormulaNode }
  | { k: 'call'; fn: 'min' | 'max' | 'round'; args: FormulaNode[] }

/** A formula that does not parse; `at` is the 1-based position of the offending character. */
export class FormulaError extends Error {
  constructor(
    readonly at: number,
    reason: string,
  ) {
    super(`at ${at}: ${reason}`)
  }
}

type Tok = { t: 'num'; v: number; at: number } | { t: 'name'; v: string; at: number } | { t: 'op'; v: string; at: number } | { t: 'end'; at: number }

const FUNCTIONS = new Set(['min', 'max', 'round'])

function tokenize(src: string): Tok[] {
  const out: Tok[] = []
  let i = 0
  while (i < src.length) {
    const c = src[i]
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++
      continue
    }
    if (out.length >= FORMULA_LIMITS.tokens) throw new FormulaError(i + 1, `more than ${FORMULA_LIMITS.tokens} tokens`)
    const num = /^(?:\d+(?:\.\d+)?|\.\d+)/.exec(src.slice(i, i + 40))
    if (num) {
      const v = Number(num[0])
      if (!Number.isFinite(v)) throw new FormulaError(i + 1, 'number out of range')
      out.push({ t: 'num', v, at: i + 1 })
      i += num[0].length
      continue
    }
    const name = /^[a-z_][a-z0-9_]*/.exec(src.slice(i, i + 65))
    if (name) {
      out.push({ t: 'name', v: name[0], at: i + 1 })
      i += name[0].length
      continue
    }
    if ('+-*/(),'.includes(c)) {
      out.push({ t: 'op', v: c, at: i + 1 })
      i++
      continue
    }
    const shown = JSON.stringify(String.fromCodePoint(src.codePointAt(i)!))
    throw new FormulaError(i + 1, `unexpected character ${shown}`)
  }
  out.push({ t: 'end', at: src.length + 1 })
  return out
}

const describe = (t: Tok) => (t.t === 'end' ? 'the end' : t.t === 'num' ? `number ${t.v}` : `"${t.v}"`)

/**
 * Parses a formula. `known` says whether a key may be used (a number or rollup field of the board) and why not;
 * throws a FormulaError naming the position of the first problem.
 */
export function parseFormula(src: string, known: (key: string) => string | undefined): FormulaNode {
  if (src.length > FORMULA_LIMITS.length) throw new FormulaError(FORMULA_LIMITS.length + 1, `longer than ${FORMULA_LIMITS.length} characters`)
  const toks = tokenize(src)
  let p = 0
  let depth = 0
  const peek = () => toks[p]
  const isOp = (v: string) => {
    const t = toks[p]
    return t.t === 'op' && t.v === v
  }
  const expect = (v: string) => {
    if (!isOp(v)) throw new FormulaError(peek().at, `expected "${v}", found ${describe(peek())}`)
    p++
  }
  const deeper = (at: number) => {
    if (++depth > FORMULA_LIMITS.depth) throw new FormulaError(at, `nested more than ${FORMULA_LIMITS.depth} deep`)
  }
  const expr = (): FormulaNode => {
    let a = term()
    while (isOp('+') || isOp('-')) {
      const op = (toks[p++] as { v: string }).v as '+' | '-'
      a = { k: 'bin', op, a, b: term() }
    }
    return a
  }
  const term = (): FormulaNode => {
    let a = unary()
    while (isOp('*') || isOp('/')) {
      const op = (toks[p++] as { v: string }).v as '*' | '/'
      a = { k: 'bin', op, a, b: unary() }
    }
    return a
  }
  const unary = (): FormulaNode => {
    const t = peek()
    if (isOp('-')) {
      p++
      deeper(t.at)
      const a = unary()
      depth--
      return { k: 'neg', a }
    }
    return primary()
  }
  const primary = (): FormulaNode => {
    const t = peek()
    if (t.t === 'num') {
      p++
      return { k: 'num', v: t.v }
    }
    if (t.t === 'name') {
      p++
      if (isOp('(')) {
        if (!FUNCTIONS.has(t.v)) throw new FormulaError(t.at, `unknown function "${t.v}"; use min, max or round`)
        p++
        deeper(t.at)
        const args = [expr()]
        while (isOp(',')) {
          p++
          args.push(expr())
        }
        expect(')')
        depth--
        const fn = t.v as 'min' | 'max' | 'round'
        if (fn === 'round' && args.length > 2) throw new FormulaError(t.at, 'round takes a value and at most a number of decimals')
        if (fn === 'round' && args.length === 2) {
          const d = args[1]
          if (d.k !== 'num' || !Number.isInteger(d.v) || d.v > 10) throw new FormulaError(t.at, 'round’s decimals must be a whole number from 0 to 10')
        }
        return { k: 'call', fn, args }
      }
      if (FUNCTIONS.has(t.v)) throw new FormulaError(t.at, `"${t.v}" is a function: write ${t.v}(…)`)
      const why = known(t.v)
      if (why) throw new FormulaError(t.at, why)
      return { k: 'ref', key: t.v }
    }
    if (isOp('(')) {
      p++
      deeper(t.at)
      const a = expr()
      expect(')')
      depth--
      return a
    }
    throw new FormulaError(t.at, `expected a number, a field key, a function or "(", found ${describe(t)}`)
  }
  const node = expr()
  if (peek().t !== 'end') throw new FormulaError(peek().at, `expected an operator or the end, found ${describe(peek())}`)
  return node
}

/** The keys a formula reads. */
export function formulaKeys(node: FormulaNode, out = new Set<string>()): Set<string> {
  switch (node.k) {
    case 'ref':
      out.add(node.key)
      break
    case 'neg':
      formulaKeys(node.a, out)
      break
    case 'bin':
      formulaKeys(node.a, out)
      formulaKeys(node.b, out)
      break
    case 'call':
      for (const a of node.args) formulaKeys(a, out)
      break
  }
  return out
}

const finite = (v: number): number | null => (Number.isFinite(v) ? (v === 0 ? 0 : v) : null)

/** Evaluates a parsed formula against a card's number values by key; null when an input is missing or a step has no number. */
export function evaluateFormula(node: FormulaNode, values: ReadonlyMap<string, number>): number | null {
  switch (node.k) {
    case 'num':
      return node.v
    case 'ref':
      return values.get(node.key) ?? null
    case 'neg': {
      const a = evaluateFormula(node.a, values)
      return a === null ? null : finite(-a)
    }
    case 'bin': {
      const a = evaluateFormula(node.a, values)
      const b = evaluateFormula(node.b, values)
      if (a === null || b === null) return null
      if (node.op === '/') return b === 0 ? null : finite(a / b)
      return finite(node.op === '+' ? a + b : node.op === '-' ? a - b : a * b)
    }
    case 'call': {
      const args = node.args.map((a) => evaluateFormula(a, values))
      if (args.some((a) => a === null)) return null
      const nums = args as number[]
      if (node.fn === 'min') return Math.min(...nums)
      if (node.fn === 'max') return Math.max(...nums)
      const f = 10 ** (nums[1] ?? 0)
      return finite(Math.round(nums[0] * f) / f)
    }
  }
}

// Splits a filter string into tokens on demand, left to right, so the first error in the text is the one reported.
import { FilterError } from './error.js'
import type { CompareOp } from './ast.js'

export type Token =
  | { kind: 'field'; pos: number; text: string }
  | { kind: 'string'; pos: number; text: string; value: string }
  | { kind: 'number'; pos: number; text: string; value: number }
  | { kind: 'literal'; pos: number; text: string; value: boolean | null }
  | { kind: 'op'; pos: number; text: CompareOp }
  | { kind: '&&' | '||' | '!' | '(' | ')' | 'eof'; pos: number; text: string }

/** Every filter error goes through here: `at <1-based position>: <message>`, HTTP 400 invalid_filter. */
export function failAt(pos: number, message: string): never {
  throw new FilterError(`at ${pos}: ${message}`)
}

/** How a token is named in an error message; long text is cut so messages stay short. */
export function describe(t: Token): string {
  if (t.kind === 'eof') return 'end of filter'
  if (t.kind === 'string') return 'a string'
  return JSON.stringify(t.text.length > 24 ? `${t.text.slice(0, 24)}…` : t.text)
}

const isSpace = (c: number) => c === 32 || c === 9 || c === 10 || c === 13
const isDigit = (c: number) => c >= 48 && c <= 57
const isIdentStart = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95
const isIdent = (c: number) => isIdentStart(c) || isDigit(c)

export class Tokenizer {
  private i = 0
  private peeked: Token | null = null

  constructor(private readonly src: string) {}

  peek(): Token {
    return (this.peeked ??= this.scan())
  }

  next(): Token {
    const t = this.peek()
    this.peeked = null
    return t
  }

  private scan(): Token {
    const s = this.src
    while (this.i < s.length && isSpace(s.charCodeAt(this.i))) this.i++
    const start = this.i
    const pos = start + 1
    if (start >= s.length) return { kind: 'eof', pos, text: '' }
    const c = s[start]
    const two = s.slice(start, start + 2)
    if (two === '&&' || two === '||' || two === '!=' || two === '!~' || two === '>=' || two === '<=') {
      this.i += 2
      if (two === '&&' || two === '||') return { kind: two, pos, text: two }
      return { kind: 'op', pos, text: two as CompareOp }
    }
    this.i++
    switch (c) {
      case '(':
      case ')':
      case '!':
        return { kind: c, pos, text: c }
      case '=':
      case '>':
      case '<':
      case '~':
        return { kind: 'op', pos, text: c }
      case '"':
        return this.string(start)
      case "'":
        return failAt(pos, 'single quotes are not allowed; write strings in double quotes')
      case '&':
        return failAt(pos, 'unexpected character "&" (use "&&")')
      case '|':
        return failAt(pos, 'unexpected character "|" (use "||")')
    }
    const code = s.charCodeAt(start)
    if (c === '-' || isDigit(code)) return this.number(start)
    if (isIdentStart(code)) return this.word(start)
    return failAt(pos, `unexpected character ${JSON.stringify(String.fromCodePoint(s.codePointAt(start)!))}`)
  }

  /** Double-quoted; only \" and \\ escapes, so a value can always be quoted by escaping exactly those two. */
  private string(start: number): Token {
    const s = this.src
    const parts: string[] = []
    let from = start + 1
    for (let i = from; i < s.length; i++) {
      const c = s[i]
      if (c === '"') {
        parts.push(s.slice(from, i))
        this.i = i + 1
        return { kind: 'string', pos: start + 1, text: s.slice(start, i + 1), value: parts.join('') }
      }
      if (c === '\\') {
        const e = s[i + 1]
        if (e === undefined) break
        if (e !== '"' && e !== '\\') {
          const code = s.codePointAt(i + 1)!
          const shown = code > 32 && code < 127 ? `"\\${e}"` : `"\\" followed by U+${code.toString(16).toUpperCase().padStart(4, '0')}`
          failAt(i + 1, `invalid escape ${shown} in a string; only \\" and \\\\ are allowed`)
        }
        parts.push(s.slice(from, i), e)
        from = i + 2
        i++
      }
    }
    return failAt(start + 1, 'unterminated string')
  }

  /** Integers and decimals, optionally negative; no exponents, so printed numbers must stay plain (see print.ts). */
  private number(start: number): Token {
    const s = this.src
    let i = start
    if (s[i] === '-') i++
    if (!isDigit(s.charCodeAt(i))) return failAt(start + 1, 'expected a digit after "-"')
    while (isDigit(s.charCodeAt(i))) i++
    if (s[i] === '.') {
      i++
      if (!isDigit(s.charCodeAt(i))) return failAt(i + 1, 'expected a digit after "."')
      while (isDigit(s.charCodeAt(i))) i++
    }
    this.i = i
    const text = s.slice(start, i)
    const value = Number(text)
    if (!Number.isFinite(value)) return failAt(start + 1, 'number out of range')
    // -0 would not survive printing as "0"; it means the same as 0 anyway.
    return { kind: 'number', pos: start + 1, text, value: value === 0 ? 0 : value }
  }

  /** A field path `a.b.c`, or one of the literals true/false/null. */
  private word(start: number): Token {
    const s = this.src
    let i = start
    for (;;) {
      while (isIdent(s.charCodeAt(i))) i++
      if (s[i] !== '.') break
      if (!isIdentStart(s.charCodeAt(i + 1))) return failAt(i + 2, 'expected a field name after "."')
      i++
    }
    this.i = i
    const text = s.slice(start, i)
    if (text === 'true' || text === 'false') return { kind: 'literal', pos: start + 1, text, value: text === 'true' }
    if (text === 'null') return { kind: 'literal', pos: start + 1, text, value: null }
    return { kind: 'field', pos: start + 1, text }
  }
}

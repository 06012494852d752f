// Taking secret values out of what a receiver answered (a webhook's response excerpt, an automation step's output), in
// every spelling a receiver commonly gives them: as sent, JSON-escaped (`\u003c`, `\/`, escaped twice), percent-encoded,
// HTML character references, hex, and base64 or base64url at any position in a longer encoded text.
const REDACTED = '[redacted]'

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&')

/** A hex number of `width` digits, each letter digit in either case: `3[cC]`. */
const hexPattern = (n: number, width: number): string =>
  n
    .toString(16)
    .padStart(width, '0')
    .replace(/[a-f]/g, (d) => `[${d}${d.toUpperCase()}]`)

const JSON_SHORT: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', '\b': 'b', '\f': 'f', '\n': 'n', '\r': 'r', '\t': 't' }
const OVERLAPPING = new Set(['\\', '%', '&'])
const HTML_NAMED: Record<string, string[]> = { '<': ['lt'], '>': ['gt'], '&': ['amp'], '"': ['quot'], "'": ['apos'] }

/**
 * The spellings of one character (a code point): itself; a JSON escape (`\uXXXX` per UTF-16 unit, the short forms, with
 * the backslash doubled as often as a string was encoded again); percent-encoding of its UTF-8 bytes (`%25` repeated for
 * a twice-encoded one, `+` for a space); an HTML character reference.
 */
function charPattern(ch: string): string {
  const alts = [escapeRe(ch)]
  const units = Array.from({ length: ch.length }, (_, i) => ch.charCodeAt(i))
  alts.push(units.map((u) => `\\\\{1,3}u${hexPattern(u, 4)}`).join(''))
  if (JSON_SHORT[ch]) alts.push(`\\\\{1,3}${escapeRe(JSON_SHORT[ch])}`)
  alts.push([...Buffer.from(ch, 'utf8')].map((b) => `%(?:25){0,3}${hexPattern(b, 2)}`).join(''))
  if (ch === ' ') alts.push('\\+')
  const code = ch.codePointAt(0)!
  alts.push(`&#0{0,4}${code};`, `&#[xX]0{0,4}${hexPattern(code, 1)};`, ...(HTML_NAMED[ch] ?? []).map((n) => `&${n};`))
  return `(?:${alts.join('|')})`
}

/** Letters of a fixed encoding (hex, base64) as a pattern: hex digits in either case, `/` also JSON-escaped. */
const encodedPattern = (text: string, hex: boolean): string =>
  [...text].map((c) => (hex && /[a-f]/.test(c) ? `[${c}${c.toUpperCase()}]` : c === '/' ? '\\\\*/' : escapeRe(c))).join('')

/** A block encoding's letters shorter than this are left alone: they would match unrelated text. */
const MIN_BLOCK = 8

/**
 * The base64 (and base64url) letters that encode `value` wherever it starts in a longer text: at each of the three byte
 * offsets, the letters that depend on the value's bytes only.
 */
function base64Cores(value: Buffer): string[] {
  const cores: string[] = []
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), value]).toString('base64')
    const core = encoded.slice(Math.ceil((offset * 8) / 6), Math.floor(((offset + value.length) * 8) / 6))
    if (core.length >= MIN_BLOCK) cores.push(core, core.replaceAll('+', '-').replaceAll('/', '_'))
  }
  return cores
}

interface Matcher {
  pattern: RegExp
  /** The most characters one echo of a value can take, for cutting a truncated text's tail. */
  longest: number
}

function matcherFor(sensitive: readonly string[]): Matcher {
  const alts: string[] = []
  let longest = 0
  for (const value of new Set(sensitive)) {
    if (!value) continue
    const bytes = Buffer.from(value, 'utf8')
    // Backslashes, percent signs and ampersands have spellings that overlap (a run of backslashes splits many ways): a
    // value with more than a few of them keeps only their plain spelling, so matching stays linear whatever the answer.
    const overlapping = [...value].filter((c) => OVERLAPPING.has(c)).length > 4
    alts.push([...value].map((c) => (overlapping && OVERLAPPING.has(c) ? escapeRe(c) : charPattern(c))).join(''))
    if (overlapping) alts.push(escapeRe(JSON.stringify(value).slice(1, -1)))
    if (bytes.length * 2 >= MIN_BLOCK) alts.push(encodedPattern(bytes.toString('hex'), true))
    for (const core of base64Cores(bytes)) alts.push(encodedPattern(core, false))
    // Every character escaped as \uXXXX (a surrogate pair for one beyond the BMP), or as %XX per UTF-8 byte, is the longest.
    longest = Math.max(
      longest,
      [...value].reduce((n, c) => n + Math.max(6 * c.length, 3 * Buffer.byteLength(c)), 0),
    )
  }
  // Longer alternatives first, so that an echo is taken whole rather than by a shorter spelling inside it.
  alts.sort((a, b) => b.length - a.length)
  return { pattern: new RegExp(alts.join('|'), 'g'), longest }
}

const matchers = new Map<string, Matcher>()

/** The matcher of a set of values, kept for the next answer of the same receiver (a few hundred sets at most). */
function cachedMatcher(sensitive: readonly string[]): Matcher {
  const key = sensitive.join('\u0000')
  let m = matchers.get(key)
  if (!m) {
    if (matchers.size >= 500) matchers.clear()
    m = matcherFor(sensitive)
    matchers.set(key, m)
  }
  return m
}

/**
 * `text` with every echo of the sensitive values replaced, in any of the spellings above. A text cut at its size limit
 * (`limit` bytes) also loses as many trailing characters as the longest spelling of a value has, whatever they are, so
 * a value cut in half is never shown and a guess never changes what is shown.
 */
export function redactEchoes(text: string, sensitive: readonly string[], limit: number): string {
  const values = sensitive.filter((v) => v.length > 0)
  if (values.length === 0) return text
  const { pattern, longest } = cachedMatcher(values)
  let out = text.replace(pattern, REDACTED)
  if (Buffer.byteLength(text) >= limit) out = `${out.slice(0, Math.max(0, out.length - longest))}${REDACTED}`
  return out
}

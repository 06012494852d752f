// How deep untrusted JSON may nest. Every JSON text taskd reads from outside (request bodies, incoming webhooks, MCP,
// answers of HTTP steps and AI endpoints) is measured before it is parsed: code that walks a parsed value recursively
// (NUL checks, schema validation, placeholders, JSON.stringify) would otherwise overflow the stack on 20,000 levels.
// No API body, webhook payload or reply taskd deals with comes near 64 levels.

/** The deepest nesting of arrays and objects accepted. */
export const MAX_JSON_DEPTH = 64

const OPEN_BRACE = 0x7b
const OPEN_BRACKET = 0x5b
const CLOSE_BRACE = 0x7d
const CLOSE_BRACKET = 0x5d
const QUOTE = 0x22
const BACKSLASH = 0x5c

/**
 * Whether the JSON text nests arrays and objects deeper than `max`, found in one pass without parsing (quotes and
 * escapes are followed, so brackets inside strings do not count). Text that is not JSON at all may answer either way;
 * the parser that follows refuses it.
 */
export function jsonTooDeep(text: string | Uint8Array, max: number = MAX_JSON_DEPTH): boolean {
  const at = typeof text === 'string' ? (i: number) => text.charCodeAt(i) : (i: number) => text[i]
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = at(i)
    if (inString) {
      if (c === BACKSLASH) i++
      else if (c === QUOTE) inString = false
    } else if (c === QUOTE) inString = true
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > max) return true
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--
  }
  return false
}

/** Thrown by parseJson for a text nested deeper than MAX_JSON_DEPTH. */
export class JsonTooDeepError extends Error {
  constructor() {
    super(`JSON nested deeper than ${MAX_JSON_DEPTH} levels is not accepted.`)
  }
}

/** JSON.parse for text from outside: a text nested deeper than MAX_JSON_DEPTH throws JsonTooDeepError, bad JSON SyntaxError. */
export function parseJson(text: string): unknown {
  if (jsonTooDeep(text)) throw new JsonTooDeepError()
  return JSON.parse(text)
}

// The text of a search (`q`) as the terms the index is asked for: words, "quoted phrases" and prefixes (`deplo*`).
// Nothing of it is query syntax for the index: each term goes in as a quoted string or as words (src/db/full-text.ts).
import type { SearchTerm } from '../../db/full-text.js'

/** A quoted phrase (an unclosed quote runs to the end) with an optional `*` after it, or a run of anything but space and quotes. */
const CHUNK = /"([^"]*)"?(\*)?|[^\s"]+/g
/** The words of a term: runs of letters and digits (what is between them only separates them). */
const WORD = /[\p{L}\p{N}]+/gu

/** The terms of `q`, each holding at least one word; none for a text of punctuation alone. */
export function searchTerms(q: string): SearchTerm[] {
  const terms: SearchTerm[] = []
  for (const m of q.matchAll(CHUNK)) {
    const quoted = m[1] !== undefined
    const prefix = quoted ? m[2] === '*' : m[0].endsWith('*')
    const text = quoted ? m[1] : m[0].replace(/\*+$/, '')
    const words = text.match(WORD) ?? []
    if (words.length) terms.push({ text, words, prefix })
  }
  return terms
}

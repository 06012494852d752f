// Card keys mentioned in text a code host sends (a branch name, a commit message, a pull request's title or body):
// `<PREFIX>-<n>` in any case, as a whole word: no letter or digit right before or after it (`LCH-12`, `lch-12`,
// `feature/LCH-12-login`, `[LCH-12]` and `LCH-12_fix` mention LCH-12; `XLCH-12`, `LCH-123`, `LCH-12a` and `LCH-1.2` do
// not mention LCH-12). A prefix is what boards allow: a letter, then at most 9 letters or digits.

/** A key as mentioned: its prefix in capitals and its number. */
export interface Mention {
  prefix: string
  num: number
}

/** At most this many distinct keys are read from one text (a huge commit message links no more). */
export const MAX_MENTIONS = 50

const KEY = /(?<![\p{L}\p{N}])([A-Za-z][A-Za-z0-9]{0,9})-([0-9]{1,9})(?![\p{L}\p{N}]|\.[\p{L}\p{N}])/gu

/** The distinct keys the texts mention, in order of first mention. */
export function mentionsIn(...texts: (string | null | undefined)[]): Mention[] {
  const seen = new Map<string, Mention>()
  for (const text of texts) {
    if (!text) continue
    for (const m of text.matchAll(KEY)) {
      const prefix = m[1].toUpperCase()
      const num = Number(m[2])
      if (num < 1) continue
      const key = `${prefix}-${num}`
      if (!seen.has(key)) seen.set(key, { prefix, num })
      if (seen.size >= MAX_MENTIONS) return [...seen.values()]
    }
  }
  return [...seen.values()]
}

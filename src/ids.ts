// Random identifiers: record ids and token values.
import crypto from 'node:crypto'

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
const LOWER36 = '0123456789abcdefghijklmnopqrstuvwxyz'

function randomString(alphabet: string, length: number): string {
  // Rejection sampling keeps every character uniform.
  const limit = 256 - (256 % alphabet.length)
  let out = ''
  while (out.length < length) {
    for (const byte of crypto.randomBytes(length * 2)) {
      if (byte < limit) out += alphabet[byte % alphabet.length]
      if (out.length === length) break
    }
  }
  return out
}

/** A 16-character lowercase record id (about 82 bits). */
export const newId = (): string => randomString(LOWER36, 16)

/** A token value: `tt_` + 43 base62 characters (about 256 bits). */
export const newTokenValue = (): string => `tt_${randomString(BASE62, 43)}`

export const sha256Hex = (value: string): string => crypto.createHash('sha256').update(value).digest('hex')

/** The random part of a public URL (an incoming endpoint's, a note publication's): 32 base62 characters (about 190 bits). */
export const newHookPath = (): string => randomString(BASE62, 32)

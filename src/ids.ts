// Random identifiers: record ids and token values, uniform over their alphabets (nanoid: a pool of random bytes, refilled
// in bulk, so an id costs no system call of its own).
import crypto from 'node:crypto'
import { customAlphabet } from 'nanoid'

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
const LOWER36 = '0123456789abcdefghijklmnopqrstuvwxyz'

/** A 16-character lowercase record id (about 82 bits). */
export const newId: () => string = customAlphabet(LOWER36, 16)

const tokenPart = customAlphabet(BASE62, 43)
/** A token value: `tt_` + 43 base62 characters (about 256 bits). */
export const newTokenValue = (): string => `tt_${tokenPart()}`

export const sha256Hex = (value: string): string => crypto.createHash('sha256').update(value).digest('hex')

/** The random part of a public URL (an incoming endpoint's, a note publication's): 32 base62 characters (about 190 bits). */
export const newHookPath: () => string = customAlphabet(BASE62, 32)

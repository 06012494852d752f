// Identifiers: record ids (time-ordered), and token values and public paths, uniform over their alphabets (nanoid: a
// pool of random bytes, refilled in bulk, so an id costs no system call of its own).
import crypto from 'node:crypto'
import { customAlphabet } from 'nanoid'

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

const ID_EPOCH = Date.UTC(2020, 0, 1)
const TAIL = 36 ** 8 // 8 base36 characters, about 41 bits
const LAST_TIME = 36 ** 8 - 1 // the year 2109
let lastTime = -1
let lastTail = 0

/**
 * A 16-character lowercase record id: the milliseconds since 2020 (8 base36 characters, enough until 2109), then 8
 * random ones, counting up from the last id within a millisecond so that one process never makes the same id twice
 * (also when the clock goes back, or is before 2020: its ids then count up from a random start).
 * Ids made one after another are near each other in every index that ends in the id (the primary keys, ties), so a
 * commit writes a few index pages instead of one random page per new row and index.
 */
export function newId(): string {
  const now = Math.min(Math.max(Date.now() - ID_EPOCH, 0), LAST_TIME)
  let time = Math.max(now, lastTime)
  let tail: number
  if (time !== lastTime) tail = crypto.randomInt(TAIL)
  else {
    tail = lastTail + 1
    if (tail === TAIL) [time, tail] = [Math.min(time + 1, LAST_TIME), 0]
  }
  lastTime = time
  lastTail = tail
  return time.toString(36).padStart(8, '0') + tail.toString(36).padStart(8, '0')
}

const tokenPart = customAlphabet(BASE62, 43)
/** A token value: `tt_` + 43 base62 characters (about 256 bits). */
export const newTokenValue = (): string => `tt_${tokenPart()}`

export const sha256Hex = (value: string): string => crypto.createHash('sha256').update(value).digest('hex')

/** The random part of a public URL (an incoming endpoint's, a note publication's): 32 base62 characters (about 190 bits). */
export const newHookPath: () => string = customAlphabet(BASE62, 32)

// Passwords: scrypt from node:crypto (OpenSSL's implementation: maintained with Node, no native package for the single
// binary to carry), N = 2^15, r = 8, p = 1 (32 MB and some 50-100 ms a hash, on libuv's thread pool, never the event
// loop), a 16-byte random salt and a 32-byte key, stored in PHC string form with its parameters
// (`$scrypt$ln=15,r=8,p=1$<salt>$<key>`, base64 without padding), so stronger parameters can come later and older
// hashes still verify. Compared in constant time. Loaded by `taskd user set-password` too: node:crypto (and a number formatter) only.
import crypto from 'node:crypto'
import { thousands } from '../../zod-messages.js'

/** The shortest password, in characters (code points), and the longest, in UTF-8 bytes (bounded hashing work). */
export const PASSWORD_MIN_CHARS = 10
export const PASSWORD_MAX_BYTES = 1000

const LOG_N = 15
const R = 8
const P = 1
const SALT_BYTES = 16
const KEY_BYTES = 32
/** Parameters a stored hash may name: anything past these is refused rather than computed. */
const MAX_LOG_N = 20
const MAX_R = 16
const MAX_P = 4

/** Why a new password is refused, or undefined: the rules of `PATCH /v1/users/me` and `taskd user set-password`. */
export function passwordProblem(password: string): string | undefined {
  if ([...password].length < PASSWORD_MIN_CHARS) return `password must be at least ${PASSWORD_MIN_CHARS} characters.`
  if (Buffer.byteLength(password, 'utf8') > PASSWORD_MAX_BYTES) return `password must be at most ${thousands(PASSWORD_MAX_BYTES)} bytes (UTF-8).`
  return undefined
}

/** The same password however it was typed: composed and compatibility characters folded (NFKC). */
const normalized = (password: string) => Buffer.from(password.normalize('NFKC'), 'utf8')

function scrypt(password: Buffer, salt: Buffer, keyBytes: number, logN: number, r: number, p: number): Promise<Buffer> {
  const N = 2 ** logN
  return new Promise((resolve, reject) =>
    crypto.scrypt(password, salt, keyBytes, { N, r, p, maxmem: 256 * N * r + 1024 * 1024 }, (err, key) => (err ? reject(err) : resolve(key))),
  )
}

const b64 = (buf: Buffer) => buf.toString('base64').replace(/=+$/, '')

/** A new salted hash of `password`, in PHC form. */
export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.randomBytes(SALT_BYTES)
  const key = await scrypt(normalized(password), salt, KEY_BYTES, LOG_N, R, P)
  return `$scrypt$ln=${LOG_N},r=${R},p=${P}$${b64(salt)}$${b64(key)}`
}

/**
 * Stands in for the hash of an account that has none (no such user, no password yet, an agent), so that a refused
 * sign-in costs the same work either way: random bytes that no password hashes to.
 */
const DUMMY_HASH = '$scrypt$ln=15,r=8,p=1$3T7w9Gqk2m1yR6vX0cJfHw$Vd3xq0l8m8tK9y2sF1Qe5l0u7hZ3Rk2pW4nY6bC8dEg'

const PHC = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d)\$([A-Za-z0-9+/]{16,64})\$([A-Za-z0-9+/]{16,128})$/

/**
 * Whether `password` is the one `stored` was made from, in constant time. Without a stored hash (or with one this code
 * cannot read) the same work is done against a stand-in and the answer is false.
 */
export async function verifyPassword(password: string, stored: string | undefined): Promise<boolean> {
  const parsed = PHC.exec(stored ?? '')
  const usable = parsed !== null && Number(parsed[1]) <= MAX_LOG_N && Number(parsed[2]) <= MAX_R && Number(parsed[3]) <= MAX_P
  const [, logN, r, p, salt, key] = usable ? parsed : PHC.exec(DUMMY_HASH)!
  const expected = Buffer.from(key, 'base64')
  const actual = await scrypt(normalized(password), Buffer.from(salt, 'base64'), expected.length, Number(logN), Number(r), Number(p))
  return crypto.timingSafeEqual(actual, expected) && usable
}

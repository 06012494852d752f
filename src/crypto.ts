// Encrypts stored secrets (webhook secrets, delivery credentials) with AES-256-GCM under the workspace master key.
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'

const KEY_BYTES = 32
const IV_BYTES = 12
const TAG_BYTES = 16
const PREFIX = 'v1.'

/** Seals and opens short secrets. `context` is bound as associated data, so a sealed value copied
 *  into another row or field fails to open instead of silently becoming that row's secret. */
export class SecretBox {
  readonly #key: Buffer

  constructor(key: Buffer) {
    if (key.length !== KEY_BYTES) throw new Error(`the master key must be ${KEY_BYTES} bytes`)
    this.#key = Buffer.from(key)
  }

  seal(plain: string, context: string): string {
    const iv = crypto.randomBytes(IV_BYTES)
    const cipher = crypto.createCipheriv('aes-256-gcm', this.#key, iv)
    cipher.setAAD(Buffer.from(context, 'utf8'))
    const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()])
    return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), ct]).toString('base64url')
  }

  /**
   * An HMAC-SHA256 tag (base64url) of `data` under a key derived from the master key for `purpose`: for values taskd
   * hands out and must recognise when they come back (every process with the same master key agrees).
   */
  mac(data: string, purpose: string): string {
    const key = crypto.createHmac('sha256', this.#key).update(`taskd mac key: ${purpose}`).digest()
    return crypto.createHmac('sha256', key).update(data).digest('base64url')
  }

  open(sealed: string, context: string): string {
    if (!sealed.startsWith(PREFIX)) throw new Error('unknown secret format')
    const raw = Buffer.from(sealed.slice(PREFIX.length), 'base64url')
    if (raw.length < IV_BYTES + TAG_BYTES) throw new Error('sealed secret is truncated')
    const decipher = crypto.createDecipheriv('aes-256-gcm', this.#key, raw.subarray(0, IV_BYTES))
    decipher.setAAD(Buffer.from(context, 'utf8'))
    decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES))
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8')
  }
}

/** The key's bytes when the text is 64 hex characters or base64/base64url of 32 bytes. */
function masterKeyBytes(text: string): Buffer | undefined {
  const t = text.trim()
  const hex = /^[0-9a-fA-F]{64}$/.test(t)
  const key = hex ? Buffer.from(t, 'hex') : Buffer.from(t, 'base64')
  return key.length === KEY_BYTES && (hex || /^[A-Za-z0-9+/_-]+={0,2}$/.test(t)) ? key : undefined
}

/** Whether the config's master key is well formed (the config names the setting in its error). */
export const isMasterKey = (text: string): boolean => masterKeyBytes(text) !== undefined

/** TASKD_MASTER_KEY as 64 hex characters or base64/base64url of 32 bytes. */
export function parseMasterKey(text: string): Buffer {
  const key = masterKeyBytes(text)
  if (!key) throw new Error('TASKD_MASTER_KEY must be 32 bytes written as 64 hex characters or base64')
  return key
}

export const keyFileFor = (dbFile: string): string => `${dbFile}.key`

/** Reads `<db>.key`, creating it (mode 0600) on first use; 'wx' makes two processes starting at once agree on one key. */
function keyFromFile(file: string): Buffer {
  fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true })
  try {
    fs.writeFileSync(file, `${crypto.randomBytes(KEY_BYTES).toString('base64')}\n`, { mode: 0o600, flag: 'wx' })
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
  }
  try {
    return parseMasterKey(fs.readFileSync(file, 'utf8'))
  } catch (err) {
    throw new Error(`cannot use the key file ${file}: ${(err as Error).message}`, { cause: err })
  }
}

/**
 * The key comes from TASKD_MASTER_KEY, else the key file beside the SQLite database; an in-memory database gets a
 * process-local key. On PostgreSQL (dbFile undefined) TASKD_MASTER_KEY is required: every process must use the same key.
 */
export function loadSecretBox(dbFile: string | undefined, masterKey?: string): SecretBox {
  if (masterKey) return new SecretBox(parseMasterKey(masterKey))
  if (dbFile === undefined) {
    throw new Error('TASKD_MASTER_KEY is required on PostgreSQL, the same in every process (make one with: openssl rand -hex 32)')
  }
  if (dbFile === ':memory:' || dbFile === '') return new SecretBox(crypto.randomBytes(KEY_BYTES))
  return new SecretBox(keyFromFile(keyFileFor(dbFile)))
}

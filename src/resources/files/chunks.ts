// Writing a stream of bytes into the file store: chunks of CHUNK_BYTES, each inserted in a short transaction of its own
// as it fills, so a file is never held whole in memory and no transaction (on SQLite, the one write connection) waits on
// the network. The file row stays pending (seen by nothing) until its owner's last transaction marks it complete; an
// upload that fails or is cut short deletes it. POST /v1/files and the incoming endpoints both store files this way.
import crypto from 'node:crypto'
import type { Db } from '../../db/database.js'
import type { FilesTable } from '../../db/types.js'
import { HttpError } from '../../errors.js'
import { CHUNK_BYTES } from './schema.js'
import { deleteFileRows, insertChunk, insertPendingFile } from './store.js'

/** Thrown by `writeChunks` when the bytes pass their limit (nothing more is written; the caller discards the file). */
export class TooLarge extends HttpError {
  constructor(readonly limit: number) {
    super(413, 'payload_too_large', `The file is larger than ${limit} bytes.`)
  }
}

export interface Stored {
  id: string
  size: number
  sha256: string
}

/** A pending file row (complete = 0) in a transaction of its own. */
export const beginFile = (db: Db, row: Omit<FilesTable, 'complete' | 'size' | 'sha256'>): Promise<void> =>
  db.tx(async ({ q }) => void (await insertPendingFile(q, row)))

/**
 * Writes what `source` yields into the chunks of pending file `id`, chunk after chunk, and answers its size and hash.
 * Throws TooLarge once more than `limit` bytes came (what came after is not read), or what the source or the
 * database threw; the caller then discards the file (`discardFile`).
 */
export async function writeChunks(db: Db, id: string, source: AsyncIterable<Buffer>, limit: number): Promise<Stored> {
  const hash = crypto.createHash('sha256')
  let size = 0
  let seq = 0
  let held: Buffer[] = []
  let heldBytes = 0
  const flush = async (data: Buffer) => {
    await db.tx(({ q }) => insertChunk(q, id, seq, data))
    seq++
  }
  for await (const piece of source) {
    size += piece.length
    if (size > limit) throw new TooLarge(limit)
    hash.update(piece)
    held.push(piece)
    heldBytes += piece.length
    while (heldBytes >= CHUNK_BYTES) {
      const all = held.length === 1 ? held[0] : Buffer.concat(held, heldBytes)
      // A copy of the chunk's bytes: a slice would keep the whole concatenation alive with the rest.
      await flush(Buffer.from(all.subarray(0, CHUNK_BYTES)))
      const rest = all.subarray(CHUNK_BYTES)
      held = rest.length ? [Buffer.from(rest)] : []
      heldBytes = rest.length
    }
  }
  if (heldBytes > 0) await flush(Buffer.concat(held, heldBytes))
  return { id, size, sha256: hash.digest('hex') }
}

/** Deletes a file that will not be completed (its chunks go with it); a failure here is left to housekeeping. */
export async function discardFile(db: Db, id: string): Promise<void> {
  try {
    await db.tx(({ q }) => deleteFileRows(q, [id]))
  } catch {
    // The database is gone or closing: the pending row stays for housekeeping (staleIncompleteFiles).
  }
}

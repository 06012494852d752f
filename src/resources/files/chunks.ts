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
  // One chunk's buffer for the whole upload, filled and written again and again: the drivers have copied the bytes when
  // an insert resolves (better-sqlite3 binds them as transient, pg writes them into its message), so nothing of a
  // written chunk is left for the garbage collector but the pieces the socket delivered.
  const chunk = Buffer.allocUnsafeSlow(Math.min(CHUNK_BYTES, limit + 1))
  let filled = 0
  const flush = async (data: Buffer) => {
    await db.tx(({ q }) => insertChunk(q, id, seq, data))
    seq++
  }
  for await (const piece of source) {
    size += piece.length
    if (size > limit) throw new TooLarge(limit)
    hash.update(piece)
    let at = 0
    while (at < piece.length) {
      const n = piece.copy(chunk, filled, at)
      filled += n
      at += n
      if (filled === CHUNK_BYTES) {
        await flush(chunk)
        filled = 0
      }
    }
  }
  if (filled > 0) await flush(chunk.subarray(0, filled))
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

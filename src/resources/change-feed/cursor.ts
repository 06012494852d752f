// Feed cursors: opaque to clients; inside, the commit_seq read up to and when the cursor was handed out (its age is
// what the retention judges). Base64url, so a client never mistakes it for a number it could count on.
export interface Cursor {
  /** Every event with a commit_seq up to this one has been read (or is not for the caller). */
  seq: number
  /** When it was handed out, epoch ms. */
  at: number
}

export const encodeCursor = (c: Cursor): string => Buffer.from(`${c.seq}.${c.at}`).toString('base64url')

/** The cursor a string holds, or undefined when it is not one taskd handed out (malformed, or not canonical). */
export function decodeCursor(text: string): Cursor | undefined {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(text)) return undefined
  const m = /^(0|[1-9]\d{0,15})\.(0|[1-9]\d{0,15})$/.exec(Buffer.from(text, 'base64url').toString('latin1'))
  if (!m) return undefined
  const c = { seq: Number(m[1]), at: Number(m[2]) }
  if (!Number.isSafeInteger(c.seq) || !Number.isSafeInteger(c.at) || encodeCursor(c) !== text) return undefined
  return c
}

// File queries: the file rows and their chunks. A row is seen by nothing until `complete` (its last chunk written).
import { notesInSightOf } from '../../access/records.js'
import { type Viewer, visibleBoardIds } from '../../access/visibility.js'
import type { Q } from '../../db/database.js'
import type { FilesTable } from '../../db/types.js'

const completeFile = (q: Q, id: string) => q.selectFrom('files').selectAll().where('id', '=', id).where('complete', '=', 1)
/** A complete file, whoever owns it. */
export const getFile = (q: Q, id: string) => completeFile(q, id).executeTakeFirst()
export const getFiles = (q: Q, ids: readonly string[]) =>
  ids.length === 0
    ? Promise.resolve([])
    : q
        .selectFrom('files')
        .selectAll()
        .where('id', 'in', [...ids])
        .where('complete', '=', 1)
        .execute()

/** A new file row, not complete yet: its chunks follow, each in a transaction of its own. */
export const insertPendingFile = (q: Q, row: Omit<FilesTable, 'complete' | 'size' | 'sha256'>) =>
  q
    .insertInto('files')
    .values({ ...row, size: 0, sha256: '', complete: 0 })
    .execute()

export const insertChunk = (q: Q, fileId: string, seq: number, data: Buffer) => q.insertInto('file_chunks').values({ file_id: fileId, seq, data }).execute()

/** Makes a pending file complete with its size and hash; false when it is gone (its card or note deleted meanwhile). */
export async function markComplete(q: Q, id: string, size: number, sha256: string, set: Partial<FilesTable> = {}): Promise<boolean> {
  const r = await q
    .updateTable('files')
    .set({ ...set, size, sha256, complete: 1 })
    .where('id', '=', id)
    .where('complete', '=', 0)
    .executeTakeFirst()
  return Number(r.numUpdatedRows) === 1
}

/** Deletes files (complete or not); their chunks go with them. */
export async function deleteFileRows(q: Q, ids: readonly string[]): Promise<void> {
  for (let i = 0; i < ids.length; i += 500)
    await q
      .deleteFrom('files')
      .where('id', 'in', ids.slice(i, i + 500))
      .execute()
}

/** One chunk's bytes, or undefined when the file (or that chunk) is gone. */
export const readChunk = async (q: Q, fileId: string, seq: number): Promise<Buffer | undefined> =>
  (await q.selectFrom('file_chunks').select('data').where('file_id', '=', fileId).where('seq', '=', seq).executeTakeFirst())?.data

/** Pending files begun before `before` (an upload that a crash or a lost connection left): housekeeping deletes them. */
export const staleIncompleteFiles = async (q: Q, before: string): Promise<string[]> =>
  (await q.selectFrom('files').select('id').where('complete', '=', 0).where('created_at', '<', before).limit(1000).execute()).map((r) => r.id)

/**
 * Copies a complete file under a new id with other owners: its chunks are copied by the database, never through
 * memory here (an automation attaching an incoming request's files to the card it made).
 */
export async function copyFile(q: Q, from: FilesTable, to: Omit<FilesTable, 'size' | 'sha256' | 'complete' | 'name' | 'content_type'>): Promise<void> {
  await q
    .insertInto('files')
    .values({ ...to, name: from.name, content_type: from.content_type, size: from.size, sha256: from.sha256, complete: 1 })
    .execute()
  await q
    .insertInto('file_chunks')
    .columns(['file_id', 'seq', 'data'])
    .expression((eb) =>
      eb
        .selectFrom('file_chunks')
        .select([eb.val(to.id).as('file_id'), 'seq', 'data'])
        .where('file_id', '=', from.id),
    )
    .execute()
}

/** Base query of the list: the complete files on cards of boards the viewer sees, and on notes in the viewer's sight. */
export function visibleFilesQuery(q: Q, viewer: Viewer, owner: { card?: string; note?: string }) {
  let query = q.selectFrom('files').where('files.complete', '=', 1)
  if (owner.card) query = query.where('files.card_id', '=', owner.card)
  if (owner.note) query = query.where('files.note_id', '=', owner.note)
  return query.where((eb) =>
    eb.or([
      eb('files.card_id', 'in', q.selectFrom('cards').select('cards.id').where('cards.board_id', 'in', visibleBoardIds(q, viewer))),
      eb(
        'files.note_id',
        'in',
        q
          .selectFrom('notes')
          .select('notes.id')
          .where(notesInSightOf(q, viewer, 'notes')),
      ),
    ]),
  )
}

/**
 * Drops an endpoint's oldest kept files (those of its logged requests) until they hold at most `maxBytes` together; the
 * files of requests whose runs have not finished count but stay. Only ids and sizes are read, never the bytes. On
 * SQLite the freed pages go to the database's freelist and the next files are written into them, so the file stops
 * growing at about the cap (it does not shrink); on PostgreSQL autovacuum makes the space reusable.
 */
export async function capRequestFiles(q: Q, endpointId: string, maxBytes: number): Promise<void> {
  const files = await q
    .selectFrom('files')
    .innerJoin('incoming_requests', 'incoming_requests.id', 'files.request_id')
    .select(['files.id', 'files.size'])
    .select(({ exists, selectFrom }) =>
      exists(
        selectFrom('automation_runs')
          .select('automation_runs.id')
          .whereRef('automation_runs.request_id', '=', 'incoming_requests.id')
          .where('automation_runs.status', 'in', ['queued', 'running']),
      ).as('busy'),
    )
    .where('incoming_requests.endpoint_id', '=', endpointId)
    .where('files.complete', '=', 1)
    .orderBy('incoming_requests.seq', 'desc')
    .orderBy('files.id', 'desc')
    .execute()
  let kept = 0
  const dropped: string[] = []
  for (const f of files) {
    kept += Number(f.size)
    if (kept > maxBytes && !f.busy) dropped.push(f.id)
  }
  await deleteFileRows(q, dropped)
}

// Files on cards and notes: whoever sees the card's board (or the note) lists, reads and downloads them, and adds or
// deletes them with a write token. Uploads stream into the store chunk by chunk (chunks.ts); the file is seen only once
// complete, and an upload that fails leaves nothing. Files emit no events (the event list plans none).
import { type Actor, creatorId } from '../../access/roles.js'
import { visibleOnBoard } from '../../access/visibility.js'
import { isoAt } from '../../clock.js'
import type { Db, Q } from '../../db/database.js'
import type { FilesTable } from '../../db/types.js'
import type { Deps } from '../../deps.js'
import { HttpError, notFound } from '../../errors.js'
import { newId } from '../../ids.js'
import { listPage, parseExpand, type ListParams } from '../../query/list-page.js'
import { getCard } from '../cards/published.js'
import { noteInSight } from '../notes/service.js'
import { discardFile, TooLarge, writeChunks } from './chunks.js'
import { expandFiles, type ExpandedFile, fileViews } from './present.js'
import { FILE_LIST } from './query.js'
import { CHUNK_BYTES, type FileView } from './schema.js'
import { deleteFileRows, getFile, insertPendingFile, markComplete, readChunk, staleIncompleteFiles, visibleFilesQuery } from './store.js'
import { readUpload, type UploadRequest } from './upload.js'

/** Bytes a multipart body may hold beyond its file (boundaries, headers, the owner field) before it is refused unread. */
const FORM_SLACK = 65_536

/** A file the actor sees through its card's board or its note; 404 otherwise (an incoming request's file is no API record). */
async function fileInSight(q: Q, actor: Actor, row: FilesTable | undefined): Promise<FilesTable> {
  if (row?.card_id) await visibleOnBoard(q, actor, await getCard(q, row.card_id), 'file')
  else if (row?.note_id) await noteInSight(q, actor, row.note_id, 'file')
  else throw notFound('file')
  return row
}

export async function listFiles(deps: Deps, actor: Actor, params: ListParams & { card?: string; note?: string }) {
  const { q } = deps.db
  if (params.card) await visibleOnBoard(q, actor, await getCard(q, params.card), 'card')
  if (params.note) await noteInSight(q, actor, params.note)
  return listPage(
    deps.db,
    visibleFilesQuery(q, actor.user, params),
    FILE_LIST,
    params,
    async (rows: FilesTable[], expand) => expandFiles(q, await fileViews(q, rows), expand),
    { anchored: Boolean(params.card || params.note) },
  )
}

export async function getFileFor(deps: Deps, actor: Actor, id: string, expand?: string): Promise<ExpandedFile> {
  const { q } = deps.db
  const row = await fileInSight(q, actor, await getFile(q, id))
  return (await expandFiles(q, await fileViews(q, [row]), parseExpand(expand, FILE_LIST.expand)))[0]
}

export const deleteFile = (deps: Deps, actor: Actor, id: string): Promise<void> =>
  deps.db.tx(async ({ q }) => {
    const row = await fileInSight(q, actor, await getFile(q, id))
    await deleteFileRows(q, [row.id])
  })

/** The owner named by the upload's fields, if the actor sees it (404 otherwise). */
async function ownerOf(q: Q, actor: Actor, fields: Record<string, string>): Promise<Pick<FilesTable, 'card_id' | 'note_id'>> {
  if (fields.card !== undefined) return { card_id: (await visibleOnBoard(q, actor, await getCard(q, fields.card), 'card')).id, note_id: null }
  return { card_id: null, note_id: (await noteInSight(q, actor, fields.note)).id }
}

const exists = async (db: Db, id: string) => (await db.q.selectFrom('files').select('id').where('id', '=', id).executeTakeFirst()) !== undefined

/**
 * POST /v1/files: the owner checked at the file part (in a short transaction that also makes the pending row), the part
 * written chunk by chunk as it arrives, and the file made complete once the whole body has been read. Past
 * TASKD_MAX_FILE_BYTES: 413, and nothing stays.
 */
export async function uploadFile(deps: Deps, actor: Actor, req: UploadRequest): Promise<FileView> {
  const limit = deps.config.maxFileBytes
  // The whole body is bounded too, whatever it declares: a chunked body could otherwise carry any amount around its file.
  if (Number(req.headers['content-length'] ?? 0) > limit + FORM_SLACK) throw new TooLarge(limit)
  const id = newId()
  const at = isoAt(deps.clock.now())
  const up = await readUpload(
    req,
    async (fields, part) => {
      const owner = { value: undefined as Pick<FilesTable, 'card_id' | 'note_id'> | undefined }
      await deps.db.tx(async ({ q }) => {
        owner.value = await ownerOf(q, actor, fields)
        await insertPendingFile(q, {
          id,
          ...owner.value,
          request_id: null,
          name: part.name,
          content_type: part.type,
          created_by: creatorId(actor),
          created_at: at,
        })
      })
      try {
        return await writeChunks(deps.db, id, part.stream, limit)
      } catch (err) {
        // The card or note deleted meanwhile took the pending row with it: the next chunk's insert failed.
        if (!(err instanceof HttpError) && !(await exists(deps.db, id))) throw notFound(owner.value?.card_id ? 'card' : 'note')
        throw err
      }
    },
    () => discardFile(deps.db, id),
    limit + FORM_SLACK,
    () => new TooLarge(limit),
  )
  const done = await deps.db.tx(async ({ q }) => (await markComplete(q, id, up.file.size, up.file.sha256)) && (await getFile(q, id)))
  if (!done) {
    await discardFile(deps.db, id)
    throw notFound(up.fields.card !== undefined ? 'card' : 'note')
  }
  return (await fileViews(deps.db.q, [done]))[0]
}

/** Types a browser may show in place (images it does not run, and PDF); everything else is a download. */
const INLINE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'application/pdf'])

/** `Content-Disposition` with the name in both forms: an ASCII fallback and the UTF-8 original (RFC 6266). */
export function disposition(contentType: string, name: string): string {
  const kind = INLINE_TYPES.has(contentType) ? 'inline' : 'attachment'
  const ascii = name.replace(/[^\x20-\x7e]|["\\%]/g, '_')
  const utf8 = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${utf8}`
}

export interface Download {
  status: 200 | 206 | 304
  headers: Record<string, string>
  /** The bytes, read a chunk at a time as the answer is written. */
  body?: AsyncIterable<Buffer>
}

/** Whether an If-None-Match value names this entity tag (or is `*`); weak tags compare as strong ones for GET. */
const matchesTag = (header: string | undefined, etag: string): boolean =>
  header !== undefined && header.split(',').some((t) => t.trim() === '*' || t.trim().replace(/^W\//, '') === etag)

/**
 * A single `bytes=a-b`, `bytes=a-` or `bytes=-n` range within `size`: the first and last byte, 'unsatisfiable', or
 * undefined for a header that is malformed or asks for several ranges (the whole file is sent then, as RFC 9110 allows).
 */
export function parseRange(header: string | undefined, size: number): { start: number; end: number } | 'unsatisfiable' | undefined {
  const m = header === undefined ? null : /^bytes=(\d*)-(\d*)$/.exec(header.trim())
  if (!m || (m[1] === '' && m[2] === '')) return undefined
  if (m[1] === '') {
    const suffix = Number(m[2])
    if (suffix === 0 || size === 0) return 'unsatisfiable'
    return { start: Math.max(0, size - suffix), end: size - 1 }
  }
  const start = Number(m[1])
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1)
  if (m[2] !== '' && Number(m[2]) < start) return undefined
  if (start >= size) return 'unsatisfiable'
  return { start, end }
}

/** Bytes start..end (inclusive) of a file, a stored chunk at a time; throws if the file goes away meanwhile. */
async function* bytesOf(db: Db, id: string, start: number, end: number): AsyncGenerator<Buffer> {
  if (end < start) return
  const first = Math.floor(start / CHUNK_BYTES)
  const last = Math.floor(end / CHUNK_BYTES)
  for (let seq = first; seq <= last; seq++) {
    const data = await readChunk(db.q, id, seq)
    if (!data) throw new Error(`file ${id} lost its chunk ${seq} while it was being sent`)
    const from = seq === first ? start - seq * CHUNK_BYTES : 0
    const to = seq === last ? end - seq * CHUNK_BYTES + 1 : data.length
    yield from === 0 && to === data.length ? data : data.subarray(from, to)
  }
}

/**
 * GET /v1/files/{id}/content: the bytes, streamed from the chunks; `ETag` (the sha256), `If-None-Match` → 304,
 * one `Range` → 206 (416 when it starts past the end; `If-Range` with another tag sends the whole file). Always
 * `nosniff` and `Content-Security-Policy: sandbox`; shown inline only for the safe image types and PDF.
 */
export async function fileContent(deps: Deps, actor: Actor, id: string, h: { range?: string; ifNoneMatch?: string; ifRange?: string }): Promise<Download> {
  const row = await fileInSight(deps.db.q, actor, await getFile(deps.db.q, id))
  const size = Number(row.size)
  const etag = `"${row.sha256}"`
  const headers: Record<string, string> = {
    ETag: etag,
    'Accept-Ranges': 'bytes',
    'Cache-Control': 'private, no-cache',
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': 'sandbox',
  }
  if (matchesTag(h.ifNoneMatch, etag)) return { status: 304, headers }
  headers['Content-Type'] = row.content_type
  headers['Content-Disposition'] = disposition(row.content_type, row.name)
  const range = h.ifRange === undefined || h.ifRange.trim() === etag ? parseRange(h.range, size) : undefined
  if (range === 'unsatisfiable') {
    throw new HttpError(416, 'range_not_satisfiable', `The range starts past the end of the file (${size} bytes).`, undefined, {
      ...headers,
      'Content-Range': `bytes */${size}`,
    })
  }
  if (range) {
    headers['Content-Range'] = `bytes ${range.start}-${range.end}/${size}`
    headers['Content-Length'] = String(range.end - range.start + 1)
    return { status: 206, headers, body: bytesOf(deps.db, row.id, range.start, range.end) }
  }
  headers['Content-Length'] = String(size)
  return { status: 200, headers, body: bytesOf(deps.db, row.id, 0, size - 1) }
}

/** How old a pending file must be before housekeeping takes it for one a crash or a lost connection left. */
const STALE_PENDING_MS = 24 * 3600_000

/**
 * Deletes pending files begun more than a day ago: an upload that a crash ended mid-body left its row and chunks
 * (a live upload never takes that long: its body may pause 30 s at most). Housekeeping runs it hourly.
 */
export async function purgeStalePendingFiles(deps: Deps): Promise<number> {
  let purged = 0
  for (;;) {
    const ids = await staleIncompleteFiles(deps.db.q, isoAt(deps.clock.now() - STALE_PENDING_MS))
    if (ids.length === 0) return purged
    for (const id of ids) await deps.db.tx(({ q }) => deleteFileRows(q, [id]))
    purged += ids.length
  }
}

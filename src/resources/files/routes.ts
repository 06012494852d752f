// /v1/files: files attached to cards and notes; uploads as multipart/form-data, downloads streamed with ETag and Range.
import type { IncomingMessage } from 'node:http'
import { Readable, type Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { z } from 'zod'
import { defineRoute, type Reply } from '../../http/route.js'
import { envelope, ErrorSchema, idParam } from '../../http/schemas.js'
import { listQuery, pageSchema } from '../../query/list-page.js'
import { CardSchema } from '../cards/schema.js'
import { NoteSchema } from '../notes/schema.js'
import { FILE_LIST } from './query.js'
import { FileListParams, FileSchema, UploadFileBody } from './schema.js'
import { deleteFile, type Download, fileContent, getFileFor, listFiles, uploadFile } from './service.js'
import { UploadAborted } from './upload.js'

const TAG = 'Files'
const Expanded = FileSchema.extend({
  expand: z.strictObject({ card: CardSchema.nullable().optional(), note: NoteSchema.nullable().optional() }).optional(),
})
const Bytes = z.string().meta({ format: 'binary', description: "The file's bytes (or the range asked for)." })
const CONTENT_HEADERS = {
  ETag: 'The sha256 of the bytes, quoted.',
  'Accept-Ranges': '`bytes`.',
  'Content-Disposition': '`inline` for PNG, JPEG, GIF, WebP and PDF, `attachment` for anything else; with the file name.',
  'X-Content-Type-Options': '`nosniff`, always.',
  'Content-Security-Policy': '`sandbox`, always.',
}

/**
 * After an answer to an upload whose body was not read to its end: a little more is read and thrown away, so the
 * client is not writing into a closed connection while the answer travels to it; then the connection goes.
 */
function closeAfterAnswer(req: IncomingMessage): void {
  let discarded = 0
  const close = () => {
    clearTimeout(timer)
    req.socket.destroy()
  }
  const timer = setTimeout(close, 2000)
  timer.unref()
  req.on('data', (chunk: Buffer) => {
    discarded += chunk.length
    if (discarded > 4_194_304) close()
  })
  req.on('end', close)
  req.resume()
}

/** A download as a route's reply: its bytes piped out a chunk at a time, with the socket's backpressure. */
const downloadReply = (d: Download): Reply => ({
  status: d.status,
  headers: d.headers,
  stream: async (out: Writable) => {
    if (!d.body) return void out.end()
    try {
      await pipeline(Readable.from(d.body), out)
    } catch {
      out.destroy() // the client went away, or the file did mid-answer: the connection is cut short either way
    }
  },
})

export const fileRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/files',
    operationId: 'listFiles',
    tag: TAG,
    access: 'read',
    summary: 'List files (of one card with `card`, of one note with `note`), oldest first',
    query: listQuery(FILE_LIST).extend(FileListParams.shape),
    errors: [404],
    responses: { 200: { description: 'A page of files', schema: pageSchema(Expanded, 'FilePage') } },
    handler: async ({ deps, actor, query }) => ({ status: 200, body: await listFiles(deps, actor, query) }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/files',
    operationId: 'uploadFile',
    tag: TAG,
    access: 'write',
    summary: 'Upload a file to a card or a note (multipart/form-data: the `card` or `note` field, then one `file` part)',
    description: [
      'The body streams into the database as it arrives, in chunks of at most 1 MB: a file is never held whole in memory,',
      'and it is seen only once all of it has arrived. The largest file is TASKD_MAX_FILE_BYTES (25 MB by default): past it 413,',
      'and nothing is stored. A body that is malformed, ends inside the file part or stops arriving for 30 s answers 400;',
      'a missing owner field or file part 422 naming it; a card or note you cannot see 404.',
      "The name keeps only its last path segment; the part's Content-Type becomes `content_type` (`application/octet-stream` when it is not a media type).",
      'Example: `curl -H "Authorization: Bearer $TOKEN" -F card=$CARD -F file=@invoice.pdf http://127.0.0.1:8080/v1/files`.',
    ].join(' '),
    multipart: UploadFileBody,
    errors: [404],
    responses: {
      201: { description: 'The file', schema: envelope('file', FileSchema) },
      413: { description: 'The file is larger than TASKD_MAX_FILE_BYTES; nothing was stored', schema: ErrorSchema },
    },
    handler: async ({ deps, actor, req }) => {
      try {
        return { status: 201, body: { file: await uploadFile(deps, actor, { headers: req.headers, body: req }) } }
      } catch (err) {
        if (err instanceof UploadAborted) {
          req.socket.destroy()
          return { status: 499, stream: async () => {} }
        }
        // A body left unread (too large, malformed) is not read to its end: the connection closes after the answer.
        if (!req.complete && !req.res?.headersSent) {
          req.res?.setHeader('Connection', 'close')
          req.res?.on('finish', () => closeAfterAnswer(req))
        }
        throw err
      }
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/files/{id}',
    operationId: 'getFile',
    tag: TAG,
    access: 'read',
    summary: "Get a file's record (its bytes are at /v1/files/{id}/content)",
    params: idParam,
    query: listQuery(FILE_LIST).pick({ expand: true }),
    responses: { 200: { description: 'The file', schema: envelope('file', Expanded) } },
    handler: async ({ deps, actor, params, query }) => ({ status: 200, body: { file: await getFileFor(deps, actor, params.id, query.expand) } }),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/files/{id}/content',
    operationId: 'downloadFile',
    tag: TAG,
    access: 'read',
    summary: "Download a file's bytes, streamed; `Range: bytes=a-b` for a part, `If-None-Match` with its ETag for a 304",
    description:
      'One range per request (`bytes=a-b`, `bytes=a-` or `bytes=-n`); several ranges or a malformed header get the whole file. `If-Range` with another ETag gets the whole file too.',
    params: idParam,
    responses: {
      200: { description: 'The bytes', schema: Bytes, content: 'application/octet-stream', headers: CONTENT_HEADERS },
      206: {
        description: 'The range asked for, with `Content-Range: bytes a-b/size`',
        schema: Bytes,
        content: 'application/octet-stream',
        headers: { ...CONTENT_HEADERS, 'Content-Range': '`bytes a-b/size`.' },
      },
      304: { description: 'If-None-Match named the ETag: not modified', headers: { ETag: CONTENT_HEADERS.ETag } },
      416: { description: 'The range starts past the end; `Content-Range: bytes */size`', schema: ErrorSchema },
    },
    handler: async ({ deps, actor, params, req }) => {
      const header = (name: string) => (typeof req.headers[name] === 'string' ? (req.headers[name] as string) : undefined)
      return downloadReply(
        await fileContent(deps, actor, params.id, { range: header('range'), ifNoneMatch: header('if-none-match'), ifRange: header('if-range') }),
      )
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/files/{id}',
    operationId: 'deleteFile',
    tag: TAG,
    access: 'write',
    summary: 'Delete a file and its bytes',
    params: idParam,
    responses: { 204: { description: 'Deleted' } },
    handler: async ({ deps, actor, params }) => {
      await deleteFile(deps, actor, params.id)
      return { status: 204 }
    },
  }),
]

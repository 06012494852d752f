// Reading POST /v1/files: a multipart/form-data body whose `card` or `note` field comes before its one file part. The
// file part streams into the store as it arrives (chunks.ts); every stream here has its error path, so a truncated,
// aborted or malformed body ends in a clear answer (or, for a client that went away, in nothing) and never in an
// uncaught error.
import type { IncomingHttpHeaders } from 'node:http'
import type { Readable } from 'node:stream'
import busboy, { type Busboy } from 'busboy'
import { badRequest, HttpError, invalidField } from '../../errors.js'
import type { Stored } from './chunks.js'

/** The request as a route hands it over: its headers and its body stream (never an Express object). */
export interface UploadRequest {
  headers: IncomingHttpHeaders
  body: Readable & { complete?: boolean }
}

/** Thrown when the client went away mid-body: there is no one left to answer. */
export class UploadAborted extends Error {}

/** How long the body may pause (no bytes at all) before the upload is given up. */
const IDLE_MS = 30_000

export interface UploadedPart {
  fields: Record<string, string>
  file: Stored
  name: string
  type: string
}

/** A media type as `type/subtype`, lower case, without parameters; anything else is application/octet-stream. */
export function mediaType(raw: string | undefined): string {
  const essence = (raw ?? '').split(';')[0].trim().toLowerCase()
  return /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/.test(essence) ? essence : 'application/octet-stream'
}

/** A file name as kept: its last path segment, without control characters, at most 255 characters; never empty. */
export function fileName(raw: string | undefined): string {
  const last = (raw ?? '').split(/[/\\]/).pop() ?? ''
  const clean = last.replace(/[\u0000-\u001f\u007f]/g, '').trim()
  const name = clean === '.' || clean === '..' ? '' : [...clean].slice(0, 255).join('')
  return name || 'file'
}

/**
 * Parses the body; `store` is called at the file part with the fields read so far, and writes the part's bytes
 * (answering what it stored). Answers once the whole body has been read. On any failure after `store` began, `discard`
 * removes whatever it stored (once `store` has stopped), then the error is thrown: 400 for a malformed or truncated body, a second
 * file or a body that stops arriving, 422 for a missing owner field or file part, 413 from `store` past the size limit,
 * UploadAborted when the client went away.
 */
export function readUpload(
  req: UploadRequest,
  store: (fields: Record<string, string>, part: { name: string; type: string; stream: Readable }) => Promise<Stored>,
  discard: () => Promise<void>,
  /** The whole body's bytes at most (the file's limit and room for the fields): past it `tooLarge()` ends the upload. */
  maxBodyBytes: number,
  tooLarge: () => Error,
): Promise<UploadedPart> {
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase()
  if (type !== 'multipart/form-data') return Promise.reject(new HttpError(415, 'unsupported_media_type', 'Send the file as multipart/form-data.'))
  let parser: Busboy
  try {
    parser = busboy({ headers: req.headers, limits: { files: 1, fields: 10, fieldSize: 1024, parts: 12, fieldNameSize: 100 } })
  } catch {
    return Promise.reject(badRequest('The multipart body has no usable boundary.'))
  }
  return new Promise<UploadedPart>((resolve, reject) => {
    const fields: Record<string, string> = Object.create(null) as Record<string, string>
    let task: Promise<Stored> | undefined
    let part: { name: string; type: string; stream: Readable } | undefined
    let failure: Error | undefined
    let done = false
    let idle: NodeJS.Timeout | undefined
    let received = 0
    const touch = (chunk?: Buffer) => {
      received += chunk?.length ?? 0
      if (received > maxBodyBytes) return fail(tooLarge())
      clearTimeout(idle)
      idle = setTimeout(() => fail(badRequest(`The body stopped arriving for ${IDLE_MS / 1000} s.`)), IDLE_MS)
    }
    const stopReading = () => {
      clearTimeout(idle)
      req.body.unpipe(parser)
      req.body.off('data', touch)
      req.body.pause()
    }
    /** Ends with `err`: the file part (if any) is stopped, and what `store` wrote is discarded before the answer. */
    const fail = (err: Error) => {
      if (failure || done) return
      failure = err
      stopReading()
      part?.stream.destroy(err)
      void settleFailure(err)
    }
    const settleFailure = async (err: Error) => {
      if (task) {
        await task.catch(() => undefined)
        await discard()
      }
      reject(err)
    }
    parser.on('field', (name, value) => {
      if (!task) fields[name] = value
    })
    parser.on('file', (_field, stream, info) => {
      // Before anything else: a body that ends inside this part fails this stream too, and that must never go uncaught.
      stream.on('error', () => {})
      if (failure || task) return void stream.resume()
      if (fields.card === undefined && fields.note === undefined) {
        stream.resume()
        return fail(invalidField('card', 'Send a card or note field before the file part.'))
      }
      if (fields.card !== undefined && fields.note !== undefined) {
        stream.resume()
        return fail(invalidField('note', 'Send a card or a note, not both.'))
      }
      part = { name: fileName(info.filename), type: mediaType(info.mimeType), stream }
      task = store({ ...fields }, part)
      // A failure of the store (too large, the card gone) ends the upload: what it wrote is discarded in fail().
      task.catch((err: Error) => fail(err))
    })
    parser.on('filesLimit', () => fail(badRequest('Send one file per request.', [{ path: 'file', message: 'Only one file part is taken.' }])))
    for (const event of ['fieldsLimit', 'partsLimit'] as const) parser.on(event, () => fail(badRequest('The multipart body has too many parts.')))
    parser.on('error', () => fail(badRequest('The multipart body is malformed or ends early.')))
    parser.on('close', () => {
      if (failure) return
      if (!task) return fail(invalidField('file', 'file is required: send one file part after the card or note field.'))
      clearTimeout(idle)
      task.then(
        (file) => {
          if (failure) return
          done = true
          resolve({ fields, file, name: part!.name, type: part!.type })
        },
        () => {}, // fail() above
      )
    })
    const gone = () => {
      if (!req.body.complete) fail(new UploadAborted())
    }
    // A client that went away while the token was checked has a destroyed request that emits nothing more.
    if (req.body.destroyed && !req.body.complete) return fail(new UploadAborted())
    req.body.on('error', gone)
    req.body.on('close', gone)
    req.body.on('data', touch)
    touch()
    req.body.pipe(parser)
  })
}

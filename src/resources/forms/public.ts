// The public address of a form, /v1/forms/public/<slug>: no token. GET answers the form's definition as JSON, or with
// Accept: text/html a plain page whose form posts back here (html.ts). POST takes a submission as JSON, urlencoded or
// multipart (a file field's file streams into the file store as it arrives, pending until the card takes it), at most
// 10 a minute per form and sender, and answers 201 (a thank-you page for HTML). An unknown or closed form, or one on a
// board in the trash, is 404 at once. Every answer is no-store.
import type { Readable } from 'node:stream'
import busboy, { type Busboy } from 'busboy'
import type { Request, RequestHandler, Response } from 'express'
import { isoAt } from '../../clock.js'
import { inBackground } from '../../db/database.js'
import type { FormsTable } from '../../db/types.js'
import type { Deps } from '../../deps.js'
import { badRequest, HttpError, invalidField } from '../../errors.js'
import { rateKey, senderOf, SlidingWindows } from '../../http/rate-limit.js'
import { newId } from '../../ids.js'
import { jsonTooDeep, MAX_JSON_DEPTH } from '../../json-depth.js'
import { beginFile, discardFile, writeChunks } from '../files/chunks.js'
import { fileName, mediaType } from '../files/upload.js'
import { formPage, FORM_CSP, messagePage, thankYouPage } from './html.js'
import { fieldsOf } from './present.js'
import { MAX_FIELDS } from './schema.js'
import { type Answer, honeypotFilled, openForm, publicForm, submitForm, type SubmittedFile, thankYou } from './submit.js'

/** Submissions a minute per form and sender (always on, whatever TASKD_RATE_LIMIT says). */
export const SUBMISSIONS_PER_MINUTE = 10
/** A JSON or urlencoded body at most; a multipart one may carry TASKD_MAX_FILE_BYTES of files beside this. */
export const BODY_LIMIT = 1_048_576
/** How long a body may pause (no bytes at all) before the submission is given up. */
const IDLE_MS = 30_000
/** Multipart submissions read at once per form, and in all, by this process: past them, 429 with Retry-After: 1. */
const UPLOADS_PER_FORM = 4
const UPLOADS_IN_ALL = 16

const HEADERS = { 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer', Vary: 'Accept' }
const ALLOW = 'GET, HEAD, POST, OPTIONS'
const NOT_FOUND = 'No open form is at this address.'

/** Thrown when the client went away mid-body: there is no one left to answer. */
class Aborted extends Error {}

const tooLarge = (limit: number) => new HttpError(413, 'payload_too_large', `The body is larger than ${limit} bytes.`)

/** Counts the multipart bodies being read, so many large ones at once cannot take the event loop from everyone else. */
class UploadSlots {
  private readonly perForm = new Map<string, number>()
  private all = 0
  take(formId: string): boolean {
    const n = this.perForm.get(formId) ?? 0
    if (n >= UPLOADS_PER_FORM || this.all >= UPLOADS_IN_ALL) return false
    this.perForm.set(formId, n + 1)
    this.all++
    return true
  }
  release(formId: string): void {
    const n = (this.perForm.get(formId) ?? 1) - 1
    if (n > 0) this.perForm.set(formId, n)
    else this.perForm.delete(formId)
    this.all--
  }
}

/** Calls `gone` once if the request's body will never arrive whole (it failed, or closed before its end). */
function onGone(req: Request, gone: () => void): void {
  if (req.destroyed && !req.complete) return void queueMicrotask(gone)
  req.on('error', gone)
  req.on('close', () => {
    if (!req.complete) gone()
  })
}

/** A JSON or urlencoded body, whole; past `limit` bytes 413 (reading stops there), a body that stalls 400. */
function readBody(req: Request, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    let idle: NodeJS.Timeout
    const stop = (err?: Error) => {
      clearTimeout(idle)
      req.off('data', onData)
      if (err) {
        req.pause()
        reject(err)
      } else resolve(Buffer.concat(chunks))
    }
    const touch = () => {
      clearTimeout(idle)
      idle = setTimeout(() => stop(badRequest(`The body stopped arriving for ${IDLE_MS / 1000} s.`)), IDLE_MS)
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) return stop(tooLarge(limit))
      chunks.push(chunk)
      touch()
    }
    touch()
    req.on('data', onData)
    req.on('end', () => stop())
    onGone(req, () => stop(new Aborted()))
  })
}

interface Body {
  answers: [string, Answer][]
  files: SubmittedFile[]
}

/**
 * multipart/form-data: text parts are answers; a part with a file name is the file of a file field, streamed into the
 * file store as it arrives (an empty file input, no file name, is no answer). A file for a key that is not a file field,
 * or a second one for the same key, is read and thrown away, and refuses the submission (422 naming the key). The
 * whole body is counted against `limit` as it streams (413 past it), each file against TASKD_MAX_FILE_BYTES. On any
 * failure the files stored so far are discarded before the promise rejects.
 */
function readMultipart(deps: Deps, req: Request, form: FormsTable, limit: number): Promise<Body> {
  const fileKeys = new Set(
    fieldsOf(form)
      .filter((f) => f.type === 'file')
      .map((f) => f.key),
  )
  const storing: { stream: Readable; task: Promise<SubmittedFile>; id: string }[] = []
  return new Promise((resolve, reject) => {
    let parser: Busboy
    try {
      parser = busboy({
        headers: req.headers,
        limits: { fields: MAX_FIELDS + 10, fieldSize: 65_536, fieldNameSize: 200, files: MAX_FIELDS, parts: 2 * MAX_FIELDS + 10 },
      })
    } catch {
      return reject(badRequest('The multipart body has no usable boundary.'))
    }
    let settled = false
    let idle: NodeJS.Timeout
    let size = 0
    const answers: [string, Answer][] = []
    const fileSeen = new Set<string>()
    const stopReading = () => {
      clearTimeout(idle)
      req.unpipe(parser)
      req.off('data', count)
    }
    const fail = (err: Error) => {
      if (settled) return
      settled = true
      stopReading()
      req.pause()
      for (const s of storing) s.stream.destroy(err)
      void (async () => {
        for (const s of storing) {
          await s.task.catch(() => undefined)
          await discardFile(deps.db, s.id)
        }
        reject(err)
      })()
    }
    const touch = () => {
      clearTimeout(idle)
      idle = setTimeout(() => fail(badRequest(`The body stopped arriving for ${IDLE_MS / 1000} s.`)), IDLE_MS)
    }
    const count = (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) fail(tooLarge(limit))
      else touch()
    }
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) fail(invalidField(name.slice(0, 80), `${name.slice(0, 80)} is too long.`))
      else answers.push([name, value])
    })
    parser.on('file', (name, stream, info) => {
      // A body that ends inside this part fails the part's stream as well as the parser: the parser's error answers.
      stream.on('error', () => {})
      if (settled || !info.filename) return void stream.resume()
      if (!fileKeys.has(name) || fileSeen.has(name)) {
        stream.resume()
        const key = name.slice(0, 80)
        return fail(invalidField(key, fileKeys.has(name) ? `${key} is sent more than once.` : `${key} is not a file field of this form.`))
      }
      fileSeen.add(name)
      const id = newId()
      const kept = fileName(info.filename)
      const task = inBackground(async (): Promise<SubmittedFile> => {
        await beginFile(deps.db, {
          id,
          card_id: null,
          note_id: null,
          request_id: null,
          name: kept,
          content_type: mediaType(info.mimeType),
          created_by: null,
          created_at: isoAt(deps.clock.now()),
        })
        return { key: name, name: kept, stored: await writeChunks(deps.db, id, stream, deps.config.maxFileBytes) }
      })
      storing.push({ stream, task, id })
      // Too large (413) or the database failing ends the submission; what was stored is discarded in fail().
      task.catch((err: unknown) =>
        fail(err instanceof HttpError ? err : new HttpError(503, 'unavailable', 'The file could not be stored; try again in a moment.')),
      )
    })
    for (const event of ['fieldsLimit', 'filesLimit', 'partsLimit'] as const)
      parser.on(event, () => fail(new HttpError(413, 'payload_too_large', 'The multipart body has too many parts.')))
    parser.on('error', () => fail(badRequest('The multipart body is malformed or ends early.')))
    parser.on('close', () => {
      if (settled) return
      clearTimeout(idle)
      Promise.all(storing.map((s) => s.task)).then(
        (files) => {
          if (settled) return
          settled = true
          stopReading()
          resolve({ answers, files })
        },
        () => {}, // fail() above
      )
    })
    onGone(req, () => fail(new Aborted()))
    touch()
    req.on('data', count)
    req.pipe(parser)
  })
}

/** The submission's answers (and files), by its content type: 415 for another, 400 for JSON that is not an object. */
async function readSubmission(deps: Deps, req: Request, form: FormsTable, slots: UploadSlots): Promise<Body> {
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase()
  const declared = Number(req.headers['content-length'] ?? 0)
  if (type === 'multipart/form-data') {
    const limit = deps.config.maxFileBytes + BODY_LIMIT
    if (declared > limit) throw tooLarge(limit)
    if (!slots.take(form.id))
      throw new HttpError(429, 'rate_limited', 'This form is receiving several uploads already; send again in a moment.', undefined, { 'Retry-After': '1' })
    try {
      return await readMultipart(deps, req, form, limit)
    } finally {
      slots.release(form.id)
    }
  }
  if (declared > BODY_LIMIT) throw tooLarge(BODY_LIMIT)
  const raw = await readBody(req, BODY_LIMIT)
  if (type === 'application/json') {
    if (jsonTooDeep(raw)) throw badRequest(`The JSON body nests deeper than ${MAX_JSON_DEPTH} levels.`)
    let parsed: unknown
    try {
      parsed = JSON.parse(raw.toString('utf8'))
    } catch {
      throw badRequest('The request body is not valid JSON.')
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw badRequest('Send the answers as one JSON object, each under its key.')
    return { answers: Object.entries(parsed as Record<string, Answer>), files: [] }
  }
  if (type === 'application/x-www-form-urlencoded') return { answers: [...new URLSearchParams(raw.toString('utf8'))], files: [] }
  if (type === '' && raw.length === 0) return { answers: [], files: [] }
  throw new HttpError(415, 'unsupported_media_type', 'Send the answers as application/json, application/x-www-form-urlencoded or multipart/form-data.')
}

/** After an answer given with the body unread: a little more is read and thrown away, then the connection goes. */
function closeAfterAnswer(req: Request): void {
  let discarded = 0
  const close = () => {
    clearTimeout(timer)
    req.socket.destroy()
  }
  const timer = setTimeout(close, 2000)
  timer.unref()
  req.on('data', (chunk: Buffer) => {
    discarded += chunk.length
    if (discarded > 4 * BODY_LIMIT) close()
  })
  req.on('end', close)
  req.resume()
}

const discardAll = async (deps: Deps, files: readonly SubmittedFile[]) => {
  for (const f of files) await discardFile(deps.db, f.stored.id)
}

/** `ALL /v1/forms/public/:slug`. */
export function servePublicForm(deps: Deps): RequestHandler {
  const windows = new SlidingWindows(SUBMISSIONS_PER_MINUTE)
  const slots = new UploadSlots()
  return async (req: Request, res: Response, next) => {
    const html = req.accepts(['application/json', 'text/html']) === 'text/html'
    let form: FormsTable | undefined
    let body: Body | undefined
    try {
      res.set(HEADERS)
      if (html) res.set('Content-Security-Policy', FORM_CSP)
      if (req.method === 'OPTIONS') {
        res.set('Allow', ALLOW).status(204).end()
        return
      }
      if (!['GET', 'HEAD', 'POST'].includes(req.method))
        throw new HttpError(405, 'method_not_allowed', `${req.method} is not allowed here; use GET or POST.`, undefined, { Allow: ALLOW })
      const slug = String(req.params.slug)
      form = await openForm(deps, slug)
      if (!form) throw new HttpError(404, 'not_found', NOT_FOUND)
      if (req.method !== 'POST') {
        const view = publicForm(form)
        if (html) res.status(200).type('html').send(formPage(view))
        else res.status(200).json({ form: view })
        return
      }
      const taken = windows.take(`${form.id}\u0000${rateKey(senderOf(deps, req))}`, deps.clock.now())
      if (!taken.allowed)
        throw new HttpError(429, 'rate_limited', `More than ${SUBMISSIONS_PER_MINUTE} submissions a minute from one sender; try again later.`, undefined, {
          'Retry-After': String(taken.reset),
        })
      const read = (body = await readSubmission(deps, req, form, slots))
      let submission: { id: string; message: string }
      if (honeypotFilled(read.answers)) {
        // A bot that filled in the hidden field is answered as if accepted, and nothing is kept.
        await discardAll(deps, read.files)
        submission = { id: newId(), message: thankYou(form) }
      } else submission = await submitForm(deps, slug, form.id, read.answers, read.files)
      body = undefined // its files are the card's now
      if (html) res.status(201).type('html').send(thankYouPage(form.name, submission.message))
      else res.status(201).json({ submission })
    } catch (err) {
      if (body) await discardAll(deps, body.files)
      if (err instanceof Aborted) return void req.socket.destroy()
      // A body left unread (refused before it was read, or too large) is not read to its end.
      if (!req.complete) {
        res.set('Connection', 'close')
        res.on('finish', () => closeAfterAnswer(req))
      }
      if (!html || !(err instanceof HttpError) || err.status >= 500) return next(err)
      for (const [k, v] of Object.entries(err.headers ?? {})) res.setHeader(k, v)
      res.status(err.status).type('html')
      if (err.status === 422 && form) {
        const given = new Map((body?.answers ?? []).flatMap(([k, v]) => (typeof v === 'string' ? [[k, v] as const] : [])))
        res.send(formPage(publicForm(form), given, err.details ?? [{ path: '', message: err.message }]))
      } else res.send(messagePage(err.status === 404 ? 'Not found' : 'The form could not be sent', err.message))
    }
  }
}

// The one place errors become responses: `{ error: { code, message, details?, request_id } }`, never a stack trace.
import type { NextFunction, Request, Response } from 'express'
import { FilterError } from '../filter/error.js'
import { HttpError } from '../errors.js'

interface BodyParserError {
  type?: string
  status?: number
  expose?: boolean
}

export function toHttpError(err: unknown): HttpError {
  if (err instanceof HttpError) return err
  if (err instanceof FilterError) return new HttpError(400, err.code, err.message)
  const e = err as BodyParserError
  if (e?.type === 'entity.parse.failed') return new HttpError(400, 'bad_request', 'The request body is not valid JSON.')
  if (e?.type === 'entity.too.large') return new HttpError(413, 'payload_too_large', 'The request body is too large.')
  if (e?.type === 'encoding.unsupported' || e?.type === 'charset.unsupported')
    return new HttpError(415, 'unsupported_media_type', 'The body encoding is not supported.')
  if (e?.type === 'request.aborted') return new HttpError(400, 'bad_request', 'The request was aborted.')
  if (typeof e?.status === 'number' && e.status >= 400 && e.status < 500) return new HttpError(e.status, 'bad_request', 'The request could not be read.')
  return new HttpError(500, 'internal', 'Something went wrong on our side.')
}

export function errorHandler(log: (msg: string, err: unknown) => void) {
  return (err: unknown, _req: Request, res: Response, _next: NextFunction): void => {
    const httpError = toHttpError(err)
    // Only an internal error is a failure to report; a 503 a service chose (a paused endpoint, a read past its deadline) is not.
    // With the request id (requestLog sets it), so the error can be matched to its request line.
    if (httpError.status === 500) log(res.locals.requestId ? `request ${String(res.locals.requestId)} failed` : 'request failed', err)
    if (res.headersSent) {
      res.end()
      return
    }
    for (const [k, v] of Object.entries(httpError.headers ?? {})) res.setHeader(k, v)
    const body: Record<string, unknown> = { code: httpError.code, message: httpError.message }
    if (httpError.details) body.details = httpError.details
    res.status(httpError.status).json({ error: body })
  }
}

// The one error type services throw; src/http/error-handler.ts turns it into the API's JSON error shape.
import type { z } from 'zod'
import { issueMessage } from './zod-messages.js'
export interface ErrorDetail {
  path: string
  message: string
}

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: ErrorDetail[],
    readonly headers?: Record<string, string>,
  ) {
    super(message)
  }
}

export const badRequest = (message: string, details?: ErrorDetail[]) => new HttpError(400, 'bad_request', message, details)
export const invalidFilter = (message: string) => new HttpError(400, 'invalid_filter', message)
export const unauthorized = (message = 'A valid bearer token is required.') =>
  new HttpError(401, 'unauthorized', message, undefined, { 'WWW-Authenticate': 'Bearer' })
export const forbidden = (message: string) => new HttpError(403, 'forbidden', message)
export const notFound = (what = 'record') => new HttpError(404, 'not_found', `No such ${what}.`)
export const conflict = (message: string) => new HttpError(409, 'conflict', message)
export const unprocessable = (message: string, details?: ErrorDetail[]) => new HttpError(422, 'validation_failed', message, details)
/** A 422 about one field, its reason as the message too. */
export const invalidField = (path: string, message: string) => unprocessable(message, [{ path, message }])

/** Parse options for input a person or client sent: each issue keeps its value, so a missing field reads "is required". */
export const WITH_INPUT = { reportInput: true } as const

/**
 * Input checked by the schema its route uses, for a write that does not come through a route (an agent's reply, an
 * automation step, a tool, a command): the same limits hold on every path, and a breach is the same 422.
 */
export function checkedInput<T extends z.ZodType>(schema: T, input: unknown): z.infer<T> {
  const parsed = schema.safeParse(input, WITH_INPUT)
  if (!parsed.success) throw invalidBody(zodDetails(parsed.error))
  return parsed.data
}

/**
 * One detail per problem, each a sentence naming its field (`title is required.`, `priority must be at most 4.`); an
 * unknown key is named by its own path, so clients see which field to drop.
 */
export function zodDetails(error: z.ZodError): { path: string; message: string }[] {
  const at = (path: readonly PropertyKey[]) => path.map(String).join('.') || '(root)'
  return error.issues.flatMap((i) =>
    i.code === 'unrecognized_keys'
      ? i.keys.map((key) => ({ path: at([...i.path, key]), message: `Unknown field "${key}".` }))
      : [{ path: at(i.path), message: issueMessage(i, i.path.length ? at(i.path) : 'The value') }],
  )
}

/** A 422 for a body: the first problem in the message too, since many clients show only the message. */
export function invalidBody(details: ErrorDetail[]): HttpError {
  const more = details.length > 1 ? ` (and ${details.length - 1} more problem${details.length > 2 ? 's' : ''} in details)` : ''
  return unprocessable(details.length ? `The request body is not valid: ${details[0].message}${more}` : 'The request body is not valid.', details)
}

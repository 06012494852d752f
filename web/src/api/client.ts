// The one client of the API: typed by web/src/api/schema.d.ts (generated from the OpenAPI document), same origin only,
// the session cookie sent by the browser and the session's CSRF token on every write. Errors become ApiError; a 401
// sends the person to the sign-in page with a return URL.
import createClient, { type Middleware } from 'openapi-fetch'
import type { components, paths } from './schema'

export type Schemas = components['schemas']
export type Card = Schemas['Card']
export type Board = Schemas['Board']
export type List = Schemas['List']
export type User = Schemas['User']
export type Tag = Schemas['Tag']
export type Folder = NonNullable<Schemas['Folder']>

export interface ErrorDetail {
  path: string
  message: string
}

/** An answer of the API's error shape: `{ error: { code, message, details? } }`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: ErrorDetail[] = [],
  ) {
    super(message)
    this.name = 'ApiError'
  }
}

let csrfToken: string | null = null
/** The session's CSRF token (from sign-in or GET /v1/sessions/current), sent as X-CSRF-Token on writes. */
export const setCsrfToken = (token: string | null): void => {
  csrfToken = token
}

let unauthorized: () => void = () => {}
/** What a 401 does (the app sends the person to /login?next=...). */
export const onUnauthorized = (fn: () => void): void => {
  unauthorized = fn
}

const csrf: Middleware = {
  onRequest({ request }) {
    if (request.method !== 'GET' && request.method !== 'HEAD' && csrfToken) request.headers.set('X-CSRF-Token', csrfToken)
    return request
  },
}

export const api = createClient<paths>({ baseUrl: location.origin, credentials: 'same-origin' })
api.use(csrf)

/** The error of a failed answer as an ApiError (the 401 hook runs first unless `quiet401`). */
export function toApiError(status: number, error: unknown, quiet401 = false): ApiError {
  if (status === 401 && !quiet401) unauthorized()
  const e = (error as { error?: { code?: string; message?: string; details?: ErrorDetail[] } } | undefined)?.error
  return new ApiError(status, e?.code ?? 'unknown', e?.message ?? `The server answered ${status}.`, e?.details ?? [])
}

/** The data of an openapi-fetch answer, or its ApiError thrown. */
export async function ok<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>, opts: { quiet401?: boolean } = {}): Promise<T> {
  const { data, error, response } = await call
  if (!response.ok) throw toApiError(response.status, error, opts.quiet401)
  return data as T
}

/** A human sentence for any error (ApiError's message and its first detail). */
export function errorText(err: unknown): string {
  if (err instanceof ApiError) return err.details.length ? `${err.message} (${err.details.map((d) => `${d.path}: ${d.message}`).join('; ')})` : err.message
  return err instanceof Error ? err.message : String(err)
}

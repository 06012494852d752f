// Placeholders in the strings of a step: `{webhook.body.title}`, `{event.data.id}`, `{steps.1.card.id}`, `{run.id}`,
// `{now}`, and `{secret.<id>}` (http_request header values only, resolved only in the request being sent).
// `{{` and `}}` write literal braces; a brace around anything that is not a dotted name (JSON, prose) stays as written.
// A placeholder with no value becomes the empty string.
import { z } from 'zod'
import { parseJson } from '../../json-depth.js'

/** What the placeholders of one run read. Stored with the run, so a resumed run sees what the first attempt saw. */
export const RunContext = z.object({
  webhook: z
    .object({
      name: z.string(),
      method: z.string(),
      /** The raw body (for multipart, the form fields as JSON). */
      body: z.string(),
      query: z.record(z.string(), z.unknown()),
      headers: z.record(z.string(), z.string()),
      ip: z.string(),
      files: z.array(z.object({ id: z.string(), name: z.string(), size: z.number(), type: z.string() })),
    })
    .optional(),
  event: z.object({ name: z.string(), data: z.record(z.string(), z.unknown()) }).optional(),
})
export type RunContext = z.infer<typeof RunContext>

/** What a step sees besides the stored context: the outputs of the steps before it, the run, the time. */
export interface StepScope {
  context: RunContext
  runId: string
  /** Outputs of steps 1..n-1. */
  outputs: unknown[]
  now: string
}

const TOKEN = /\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_]*(?:\.[^{}\s]+)?)\}/g
export const ROOTS = ['webhook', 'event', 'steps', 'run', 'now', 'secret'] as const

/** Each placeholder's path in a text, in order (`{{` and `}}` skipped). */
export function placeholdersIn(text: string): string[][] {
  const out: string[][] = []
  for (const m of text.matchAll(TOKEN)) if (m[1] !== undefined) out.push(m[1].split('.'))
  return out
}

/** One level deeper into parsed JSON: own properties only, array indexes as numbers. */
function dig(value: unknown, path: readonly string[]): unknown {
  let v = value
  for (const seg of path) {
    if (Array.isArray(v) && /^\d+$/.test(seg)) v = v[Number(seg)]
    else if (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.hasOwn(v, seg)) v = (v as Record<string, unknown>)[seg]
    else return undefined
  }
  return v
}

const render = (v: unknown): string => (v == null ? '' : typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v))

/** The fields of a webhook body: JSON, or a urlencoded form (a repeated field keeps its first value). */
const parsedBodies = new WeakMap<NonNullable<RunContext['webhook']>, unknown>()
function webhookFields(webhook: NonNullable<RunContext['webhook']>): unknown {
  if (parsedBodies.has(webhook)) return parsedBodies.get(webhook)
  let fields: unknown
  if ((webhook.headers['content-type'] ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded')) {
    const form: Record<string, string> = {}
    for (const [k, v] of new URLSearchParams(webhook.body)) if (!Object.hasOwn(form, k)) form[k] = v
    fields = form
  } else {
    try {
      fields = parseJson(webhook.body)
    } catch {
      // Not JSON, or nested too deep to dig into safely: no fields.
      fields = undefined
    }
  }
  parsedBodies.set(webhook, fields)
  return fields
}

function valueOf(path: readonly string[], scope: StepScope): unknown {
  const [root, ...rest] = path
  const { webhook, event } = scope.context
  switch (root) {
    case 'webhook': {
      if (!webhook) return undefined
      const [what, ...deeper] = rest
      if (what === 'body') return deeper.length === 0 ? webhook.body : dig(webhookFields(webhook), deeper)
      if (what === 'query') return dig(webhook.query, deeper)
      if (what === 'header') return deeper.length === 1 ? dig(webhook.headers, [deeper[0].toLowerCase()]) : undefined
      if (deeper.length > 0) return undefined
      if (what === 'files') return webhook.files.map((f) => f.name).join(',')
      if (what === 'files_count') return webhook.files.length
      if (what === 'name' || what === 'method' || what === 'ip') return webhook[what]
      return undefined
    }
    case 'event':
      if (!event) return undefined
      if (rest.length === 1 && rest[0] === 'name') return event.name
      return rest[0] === 'data' ? dig(event.data, rest.slice(1)) : undefined
    case 'steps': {
      const n = Number(rest[0])
      return Number.isInteger(n) && n >= 1 && n <= scope.outputs.length ? dig(scope.outputs[n - 1], rest.slice(1)) : undefined
    }
    case 'run':
      return rest.length === 1 && rest[0] === 'id' ? scope.runId : undefined
    case 'now':
      return rest.length === 0 ? scope.now : undefined
    default:
      return undefined
  }
}

/** The text with its placeholders filled in; `secret` answers `{secret.<id>}` (header values of the request sent). */
export function fillIn(text: string, scope: StepScope, opts: { secret?: (id: string) => string; encode?: (value: string) => string } = {}): string {
  return text.replace(TOKEN, (whole, name: string | undefined) => {
    if (name === undefined) return whole[0]
    const path = name.split('.')
    const value = path[0] === 'secret' ? (opts.secret && path.length === 2 ? opts.secret(path[1]) : '') : render(valueOf(path, scope))
    return opts.encode ? opts.encode(value) : value
  })
}

/**
 * A filled-in value as one piece of a URL: percent-encoded, dots included (`.` → `%2E`, `/` → `%2F`), so that inside a
 * path segment it stays that one segment (`..` cannot climb, `/` cannot add one) and in the query one value.
 */
export const urlPiece = (value: string): string => encodeURIComponent(value).replace(/\./g, '%2E')

/**
 * A URL template filled in: every place that sends a request to a templated URL goes through here (the outgoing side
 * then sends the path as written, see requestTarget in delivery/url-safety.ts).
 */
export const fillInUrl = (template: string, scope: StepScope): string => fillIn(template, scope, { encode: urlPiece })

/** Every string inside a value filled in (objects and arrays copied). */
export function fillInDeep<T>(value: T, scope: StepScope): T {
  if (typeof value === 'string') return fillIn(value, scope) as T
  if (Array.isArray(value)) return value.map((v) => fillInDeep(v, scope)) as T
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fillInDeep(v, scope)])) as T
  return value
}

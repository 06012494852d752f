// Save-time rules of automations: the trigger (endpoint and its allowlist, events and filter, cron and time zone) and
// the steps (placeholders each step may use, `{secret.<id>}` only in http_request header values, URLs, lists).
import { Cron } from 'croner'
import type { Q } from '../../db/database.js'
import type { ErrorDetail } from '../../errors.js'
import { FilterError } from '../../filter/error.js'
import { filterExpression } from '../../filter/index.js'
import { headerNameProblem, headerValueProblem } from '../../delivery/headers.js'
import { getIncoming } from '../incoming/published.js'
import { getLists } from '../lists/published.js'
import { getSigningSecrets } from '../signing-secrets/published.js'
import { eventProblems, urlProblems } from '../webhooks/rules.js'
import { fillIn, placeholdersIn, ROOTS } from './placeholders.js'
import type { Step, Trigger } from './schema.js'

/** The next slot of a 5-field cron expression after `after`, in the zone; throws on a bad expression or zone. */
export function nextSlot(cron: string, timezone: string, after: number): number | null {
  if (cron.trim().split(/\s+/).length !== 5) throw new Error('Use 5 fields: minute hour day-of-month month day-of-week.')
  return new Cron(cron, { timezone, mode: '5-part', paused: true }).nextRun(new Date(after))?.getTime() ?? null
}

function knownZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone })
    return true
  } catch {
    return false
  }
}

export async function triggerProblems(q: Q, trigger: Trigger, boardId: string, now: number): Promise<ErrorDetail[]> {
  if (trigger.type === 'incoming_webhook') {
    const endpoint = await getIncoming(q, trigger.endpoint)
    if (!endpoint) return [{ path: 'trigger.endpoint', message: 'No such incoming webhook.' }]
    const allowed =
      endpoint.all_boards === 1 ||
      (await q
        .selectFrom('incoming_endpoint_boards')
        .select('board_id')
        .where('endpoint_id', '=', endpoint.id)
        .where('board_id', '=', boardId)
        .executeTakeFirst())
    return allowed ? [] : [{ path: 'trigger.endpoint', message: "The endpoint's board allowlist does not hold this board." }]
  }
  if (trigger.type === 'event') {
    const details = eventProblems(trigger.events).map((d) => ({ ...d, path: `trigger.${d.path}` }))
    try {
      filterExpression('cards', trigger.filter)
    } catch (err) {
      if (!(err instanceof FilterError)) throw err
      details.push({ path: 'trigger.filter', message: err.message })
    }
    return details
  }
  if (!knownZone(trigger.timezone)) return [{ path: 'trigger.timezone', message: 'Unknown time zone; use an IANA name such as UTC or Europe/Berlin.' }]
  try {
    if (nextSlot(trigger.cron, trigger.timezone, now) === null) return [{ path: 'trigger.cron', message: 'This schedule never runs.' }]
  } catch (err) {
    return [{ path: 'trigger.cron', message: `Not a valid cron expression: ${(err as Error).message}` }]
  }
  return []
}

/** Every string of a step with its path, header values marked (the only place `{secret.<id>}` may stand). */
function stringsOf(value: unknown, path: string, out: { path: string; text: string; header: boolean }[], header = false) {
  if (typeof value === 'string') out.push({ path, text: value, header })
  else if (Array.isArray(value)) value.forEach((v, i) => stringsOf(v, `${path}.${i}`, out))
  else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) stringsOf(v, `${path}.${k}`, out, path.endsWith('.headers'))
  return out
}

/** Whether a text holds a placeholder (a `{{` escape is not one). */
export const hasPlaceholder = (text: string) => placeholdersIn(text).length > 0

/** The secret ids the steps name (`signing_secret`, and `{secret.<id>}` in header values). */
export function secretsOf(steps: readonly Step[]): string[] {
  const ids = new Set<string>()
  for (const step of steps) {
    if (step.type !== 'http_request') continue
    if (step.signing_secret) ids.add(step.signing_secret)
    for (const value of Object.values(step.headers ?? {})) for (const p of placeholdersIn(value)) if (p[0] === 'secret' && p.length === 2) ids.add(p[1])
  }
  return [...ids]
}

/** The origin of an http_request URL must be written out: placeholders may fill its path and query only. */
const LITERAL_ORIGIN = /^https?:\/\/[^/?#{}]+[/?]/i

/**
 * The outgoing-URL rules for each http_request step (scheme, no fragment, no private target unless allowed), with its
 * placeholders empty. Resolves names, so it runs before the transaction that saves.
 */
export async function urlChecks(steps: readonly Step[], allowPrivate: boolean): Promise<ErrorDetail[]> {
  const details: ErrorDetail[] = []
  for (const [i, step] of steps.entries()) {
    if (step.type !== 'http_request') continue
    const url = fillIn(step.url, { context: {}, runId: '', outputs: [], now: '' })
    details.push(...(await urlProblems(url, allowPrivate)).map((d) => ({ ...d, path: `steps.${i}.url` })))
  }
  return details
}

/** Everything else about the steps, against the database as it is in the saving transaction. */
export async function stepProblems(q: Q, steps: readonly Step[], trigger: Trigger, boardId: string): Promise<ErrorDetail[]> {
  const details: ErrorDetail[] = []
  const literalLists: { path: string; id: string }[] = []
  for (const [i, step] of steps.entries()) {
    const at = `steps.${i}`
    for (const s of stringsOf(step, at, [])) {
      for (const p of placeholdersIn(s.text)) {
        const name = `{${p.join('.')}}`
        const problem = !(ROOTS as readonly string[]).includes(p[0])
          ? `Unknown placeholder ${name}; placeholders start with webhook, event, steps, run, now or secret.`
          : p[0] === 'webhook' && trigger.type !== 'incoming_webhook'
            ? `${name}: webhook placeholders need an incoming_webhook trigger.`
            : p[0] === 'event' && trigger.type !== 'event'
              ? `${name}: event placeholders need an event trigger.`
              : p[0] === 'steps' && !(Number(p[1]) >= 1 && Number(p[1]) <= i && Number.isInteger(Number(p[1])))
                ? `${name}: step ${i + 1} can read the output of steps 1 to ${i} only.`
                : p[0] === 'secret' && !s.header
                  ? `${name}: {secret.<id>} may stand only in an http_request header value.`
                  : p[0] === 'secret' && p.length !== 2
                    ? `${name}: write {secret.<id>}.`
                    : undefined
        if (problem) details.push({ path: s.path, message: problem })
      }
    }
    if (step.type === 'http_request') {
      if (hasPlaceholder(step.url) && !LITERAL_ORIGIN.test(step.url.slice(0, step.url.search(/\{[A-Za-z_]/)))) {
        details.push({ path: `${at}.url`, message: 'Write the scheme, host and port out; placeholders may fill the path and query only.' })
      }
      for (const [name, value] of Object.entries(step.headers ?? {})) {
        // Unlike a subscription's static headers, a step may set its own Content-Type (a form, XML, ...).
        const problem = headerNameProblem(name, { contentType: true }) ?? (hasPlaceholder(value) ? undefined : headerValueProblem(value))
        if (problem) details.push({ path: `${at}.headers.${name}`, message: problem })
      }
    }
    // A number or yes/no field may be a text only to be filled in by a placeholder.
    for (const field of ['priority', 'position', 'completed', 'archived', 'trashed'] as const) {
      const v = (step as Record<string, unknown>)[field]
      if (typeof v === 'string' && !hasPlaceholder(v))
        details.push({ path: `${at}.${field}`, message: 'Give a number or true/false, or a text with a placeholder.' })
    }
    if ((step.type === 'create_card' || step.type === 'update_card' || step.type === 'move_card') && step.list && !hasPlaceholder(step.list)) {
      literalLists.push({ path: `${at}.list`, id: step.list })
    }
  }
  const lists = new Map((await getLists(q, [...new Set(literalLists.map((l) => l.id))])).map((l) => [l.id, l]))
  for (const l of literalLists) if (lists.get(l.id)?.board_id !== boardId) details.push({ path: l.path, message: "No such list on the automation's board." })
  const named = secretsOf(steps)
  const known = new Set((await getSigningSecrets(q, named)).map((s) => s.id))
  for (const id of named) if (!known.has(id)) details.push({ path: 'steps', message: `No such signing secret: ${id}.` })
  return details
}

// What each step does. Card steps run through the cards service inside the transaction that records the step, so a
// finished step is never done twice; the http_request step sends a signed call under the outgoing URL rules.
import type { Dispatcher } from 'undici'
import { type z } from 'zod'
import type { Actor } from '../../access/roles.js'
import { isoAt } from '../../clock.js'
import type { Tx } from '../../db/database.js'
import type { Deps } from '../../deps.js'
import { HttpError } from '../../errors.js'
import { VERSION } from '../../version.js'
import { redactEchoes } from '../../delivery/redact.js'
import { CHAIN_HEADER, chainHeaderValue } from '../../delivery/chain.js'
import { headerValueProblem } from '../../delivery/headers.js'
import { sendWebhook } from '../../delivery/send.js'
import { signedCallHeaders } from '../../delivery/signing.js'
import { kickoffViews } from '../agent-kickoffs/present.js'
import { CreateKickoffBody } from '../agent-kickoffs/schema.js'
import { startKickoffIn } from '../agent-kickoffs/service.js'
import { CreateCardBody, MoveCardBody, UpdateCardBody } from '../cards/schema.js'
import { createCardIn, moveCardIn, updateCardIn } from '../cards/service.js'
import { CreateCommentBody } from '../comments/schema.js'
import { createCommentIn } from '../comments/service.js'
import { openSigningKeys } from '../signing-secrets/service.js'
import { fillIn, fillInDeep, fillInUrl, type StepScope } from './placeholders.js'
import type { HttpRequestStep, Step } from './schema.js'
import { secretsOf } from './rules.js'
import { attachRequestFiles } from './store.js'
import { parseJson } from '../../json-depth.js'

/** A step that did not do its work; the message is what the run log shows. */
export class StepFailed extends Error {
  constructor(
    message: string,
    readonly output: unknown = null,
  ) {
    super(message)
  }
}

/** Why a service refused, in one line: its message and each field it named. */
export function failureText(err: unknown): string {
  if (err instanceof StepFailed) return err.message
  if (err instanceof HttpError) return [err.message, ...(err.details ?? []).map((d) => `${d.path}: ${d.message}`)].join(' ')
  throw err
}

// A text standing for a number, a yes/no or a list of ids becomes one; an empty text (a placeholder with no value) is left out.
const number = (v: unknown) => (typeof v === 'string' ? (v.trim() === '' ? undefined : Number(v)) : v)
const BOOLS: Record<string, boolean> = { true: true, false: false, '1': true, '0': false }
function bool(v: unknown): unknown {
  if (typeof v !== 'string') return v
  const k = v.trim().toLowerCase()
  return k === '' ? undefined : Object.hasOwn(BOOLS, k) ? BOOLS[k] : v
}
/** A text of ids: a JSON array (a placeholder that filled in an array), or ids separated by commas. */
function idList(v: unknown): unknown {
  if (typeof v !== 'string') return v
  if (v.trim().startsWith('[')) {
    try {
      return parseJson(v)
    } catch {
      // not JSON after all (or nested too deep to be a list of ids): commas
    }
  }
  return v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
}
const present = (v: unknown) => (v === '' ? undefined : v)

function parsed<T extends z.ZodType>(schema: T, input: Record<string, unknown>): z.infer<T> {
  const clean = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined))
  const result = schema.safeParse(clean)
  if (!result.success) throw new StepFailed(result.error.issues.map((i) => `${i.path.join('.') || '(step)'}: ${i.message}`).join('; '))
  return result.data
}

const cardId = (card: string) => {
  if (card.trim() === '') throw new StepFailed('card: the card id is empty (its placeholder had no value).')
  return card.trim()
}

/** The card fields of a step, as the cards service takes them. */
function cardInput(step: Record<string, unknown>) {
  return {
    title: step.title,
    description: step.description,
    list: present(step.list),
    priority: number(step.priority),
    assignees: idList(step.assignees),
    tags: idList(step.tags),
    watchers: idList(step.watchers),
    due_date: present(step.due_date),
    start_date: present(step.start_date),
    position: number(step.position),
    completed: bool(step.completed),
    archived: bool(step.archived),
    trashed: bool(step.trashed),
  }
}

/** Runs a card step as the run's actor, inside `tx`; its output is `{ card }` (`{ comment }` for add_comment, `{ kickoff }` for kickoff_agent). */
export async function runCardStep(deps: Deps, tx: Tx, actor: Actor, step: Exclude<Step, HttpRequestStep>, scope: StepScope): Promise<unknown> {
  const s = fillInDeep(step, scope) as Record<string, unknown> & Step
  const board = actor.run!.board
  switch (s.type) {
    case 'create_card': {
      const { card } = await createCardIn(deps, tx, actor, parsed(CreateCardBody, { ...cardInput(s), board }))
      const files = scope.context.webhook?.files ?? []
      if (s.attach_files !== false && files.length > 0) {
        const attached = await attachRequestFiles(
          tx.q,
          files.map((f) => f.id),
          card.id,
          isoAt(deps.clock.now()),
        )
        return { card: { ...card, files: [...card.files, ...attached] } }
      }
      return { card }
    }
    case 'update_card':
      return { card: await updateCardIn(deps, tx, actor, cardId(s.card), parsed(UpdateCardBody, cardInput(s))) }
    case 'move_card':
      return { card: await moveCardIn(deps, tx, actor, cardId(s.card), parsed(MoveCardBody, { list: s.list.trim() })) }
    case 'complete_card':
      return { card: await updateCardIn(deps, tx, actor, cardId(s.card), parsed(UpdateCardBody, { completed: bool(s.completed) ?? true })) }
    case 'add_comment':
      return { comment: await createCommentIn(deps, tx, actor, parsed(CreateCommentBody, { card: cardId(s.card), body: s.body })) }
    case 'kickoff_agent': {
      const input = parsed(CreateKickoffBody, {
        card: cardId(s.card),
        agent: present(s.agent?.trim()),
        workflow: present(s.workflow?.trim()),
        powers: s.powers?.map((p) => p.trim()).filter(Boolean),
        message: present(s.message),
      })
      const { kickoff } = await startKickoffIn(deps, tx, actor, input)
      return { kickoff: (await kickoffViews(tx.q, [kickoff]))[0] }
    }
  }
}

/** Answer bytes an http_request step keeps. */
const KEPT_BODY = 65_536

/**
 * Sends an http_request step: `{secret.<id>}` filled in here only, the V2 signature and the Standard Webhooks headers
 * when it names a signing secret (`webhook-id` is `<run id>_<step number>`, the same when a crash makes the step run
 * again), the run's chain in X-Taskd-Chain (so a call back to one of taskd's incoming endpoints starts none of its automations),
 * the outgoing URL rules, no redirects, its timeout. Its output is `{ status, headers, body }`, with every echo of a
 * secret value taken out; a 3xx, 4xx or 5xx, a timeout or a refused connection fails it.
 */
export async function runHttpStep(deps: Deps, step: HttpRequestStep, scope: StepScope, chain: readonly string[], dispatcher?: Dispatcher): Promise<unknown> {
  const keys = await openSigningKeys(deps, secretsOf([step]))
  const values = new Map([...keys].map(([id, k]) => [id, k.current]))
  const missing = (id: string) => new StepFailed(`The signing secret ${id} no longer exists.`)
  const sensitive: string[] = []
  const headers: Record<string, string> = { 'User-Agent': `taskd-automations/${VERSION}` }
  for (const [name, template] of Object.entries(step.headers ?? {})) {
    let holdsSecret = false
    const value = fillIn(String(template), scope, {
      secret: (id) => {
        const v = values.get(id)
        if (v === undefined) throw missing(id)
        sensitive.push(v)
        holdsSecret = true
        return v
      },
    })
    const problem = headerValueProblem(value)
    if (problem) throw new StepFailed(`headers.${name}: ${problem}`)
    if (holdsSecret) sensitive.push(value)
    headers[name] = value
  }
  const body = step.body === undefined ? undefined : fillIn(step.body, scope)
  if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
    headers['Content-Type'] = isJson(body) ? 'application/json' : 'text/plain; charset=utf-8'
  }
  // Set last: a step's own header of that name cannot stand in for taskd's.
  for (const name of Object.keys(headers)) if (name.toLowerCase() === CHAIN_HEADER.toLowerCase()) delete headers[name]
  const chained = chainHeaderValue(deps.secrets, chain, deps.clock.now())
  if (chained) headers[CHAIN_HEADER] = chained
  if (step.signing_secret) {
    const signing = keys.get(step.signing_secret)
    if (signing === undefined) throw missing(step.signing_secret)
    const signed = signedCallHeaders(signing, `${scope.runId}_${scope.outputs.length + 1}`, body ?? '', deps.clock.now() / 1000)
    // Set last: a step's own header of one of these names (saved before they were taskd's) cannot stand in for them.
    const names = new Set(Object.keys(signed).map((n) => n.toLowerCase()))
    for (const name of Object.keys(headers)) if (names.has(name.toLowerCase())) delete headers[name]
    Object.assign(headers, signed)
  }
  const sent = await sendWebhook({
    url: fillInUrl(step.url, scope),
    method: step.method,
    headers,
    body,
    timeoutMs: step.timeout_ms ?? 10_000,
    allowPrivate: deps.config.allowPrivateTargets,
    dispatcher,
    keepBytes: KEPT_BODY,
  })
  const clean = (text: string) => redactEchoes(text, sensitive, KEPT_BODY)
  if (sent.statusCode === null) throw new StepFailed(clean(sent.error ?? sent.outcome))
  const text = clean(sent.responseExcerpt)
  const output = {
    status: sent.statusCode,
    headers: Object.fromEntries(Object.entries(sent.responseHeaders).map(([k, v]) => [k, clean(v)])),
    body: isJson(text) ? JSON.parse(text) : text,
  }
  if (sent.outcome !== 'ok') throw new StepFailed(`The call answered ${sent.statusCode}.`, output)
  return output
}

/** Whether the text is JSON the run may keep as a value: an answer nested too deep stays text. */
function isJson(text: string): boolean {
  try {
    parseJson(text)
    return true
  } catch {
    return false
  }
}

// A submission to a public form: every answer checked against its field (422 naming the field's key), then, in one
// transaction, a new card on the form's board and list with its events, and the submitted files attached to it. The card
// is made by the form: no creator (`created_by` null), its events' actor `{ id, name, kind: "form" }` (the form's id and
// name), and, as for a change an automation run makes, its events start no event automation, so nothing loops back.
import type { Actor } from '../../access/roles.js'
import type { Q, Tx } from '../../db/database.js'
import type { FormsTable } from '../../db/types.js'
import type { Deps } from '../../deps.js'
import { checkedInput, type ErrorDetail, HttpError, invalidBody, notFound } from '../../errors.js'
import { createCardIn } from '../cards/service.js'
import { CreateCardBody, PRIORITY_NAMES } from '../cards/schema.js'
import { markComplete } from '../files/published.js'
import type { Stored } from '../files/chunks.js'
import { fieldsOf, publicFormView } from './present.js'
import { type FormField, HONEYPOT, type PublicFormView, SLUG_PATTERN, type SubmissionView } from './schema.js'
import { openFormAt } from './store.js'
import { thousands } from '../../zod-messages.js'

/** One answer as a body carries it: text (urlencoded, multipart, JSON), a JSON number, null, or anything else JSON has. */
export type Answer = string | number | null | boolean | object
/** A file part, already streamed into the file store (pending, seen by nothing until the card takes it). */
export interface SubmittedFile {
  key: string
  name: string
  stored: Stored
}

/** The open form at a slug (not closed, its board not in the trash), as the public address serves it; else undefined. */
export async function openForm(deps: Deps, slug: string): Promise<FormsTable | undefined> {
  // Anything but a slug (a NUL, which PostgreSQL's text cannot hold) names nothing, without a query.
  if (!SLUG_PATTERN.test(slug)) return undefined
  return openFormAt(deps.db.q, slug)
}

export const publicForm = (form: FormsTable): PublicFormView => publicFormView(form)

export const DEFAULT_THANK_YOU = 'Thank you: your submission was received.'
export const thankYou = (form: FormsTable): string => form.thank_you.trim() || DEFAULT_THANK_YOU

/** Whether the honeypot field came with a value: such a submission is answered as accepted and stores nothing. */
export const honeypotFilled = (answers: readonly [string, Answer][]): boolean =>
  answers.some(([k, v]) => k === HONEYPOT && v !== null && v !== '' && !(typeof v === 'string' && v.trim() === ''))

const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g
const clean = (s: string): string => s.replace(CONTROL, '').replace(/\r\n?/g, '\n').trim()
const fold = (s: string) => s.toLowerCase()
const LENGTH: Partial<Record<FormField['type'], number>> = { text: 1_000, long_text: 10_000, email: 254 }
const EMAIL = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+\.[^\s@<>()[\]\\,;:".]+$/
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/
const DAY = /^\d{4}-\d{2}-\d{2}$/
const realDay = (v: string) => DAY.test(v) && !Number.isNaN(Date.parse(`${v}T00:00:00Z`)) && new Date(`${v}T00:00:00Z`).toISOString().slice(0, 10) === v

/** A key as a detail names it: long ones cut (it is the sender's text). */
const pathOf = (key: string) => (key.length > 80 ? `${key.slice(0, 80)}…` : key)

/** An answer checked against its field: its value (text, a number, a select's option as the form spells it) or the problem. */
function answerOf(f: FormField, raw: Answer): { value?: string | number } | { error: string } {
  if (raw === null) return {}
  if (typeof raw === 'number') {
    if (f.type !== 'number') return { error: 'must be text, not a number.' }
    return Number.isFinite(raw) ? numberAnswer(f, raw) : { error: 'must be a number.' }
  }
  if (typeof raw !== 'string') return { error: 'must be text or a number.' }
  const text = clean(raw)
  if (text === '') return {}
  const max = LENGTH[f.type]
  if (max !== undefined && text.length > max) return { error: `must be at most ${thousands(max)} characters.` }
  switch (f.type) {
    case 'number':
      return NUMBER.test(text) && Number.isFinite(Number(text)) ? numberAnswer(f, Number(text)) : { error: 'must be a number.' }
    case 'date':
      return realDay(text) ? { value: text } : { error: 'must be a date, YYYY-MM-DD.' }
    case 'email':
      return EMAIL.test(text) ? { value: text } : { error: 'must be an email address.' }
    case 'select': {
      const option = f.options?.find((o) => fold(o) === fold(text))
      return option === undefined ? { error: `must be one of: ${f.options?.join(', ')}.` } : { value: option }
    }
    case 'file':
      return { error: 'is a file field: send the file as a file part of multipart/form-data.' }
    default:
      return { value: text }
  }
}

function numberAnswer(f: FormField, n: number): { value: number } | { error: string } {
  if (f.maps_to === 'priority' && !(Number.isInteger(n) && n >= 0 && n < PRIORITY_NAMES.length))
    return { error: `must be a whole number from 0 to ${PRIORITY_NAMES.length - 1}.` }
  return { value: n === 0 ? 0 : n }
}

/**
 * Every answer checked: a key no field has, one sent twice, a file where text belongs or text where a file belongs, a
 * value its type refuses, and a required field left empty each give a detail naming the key; none: the answers by key.
 */
export function checkAnswers(
  fields: readonly FormField[],
  answers: readonly [string, Answer][],
  files: readonly SubmittedFile[],
): Map<string, string | number | SubmittedFile> {
  const details: ErrorDetail[] = []
  const byKey = new Map(fields.map((f) => [f.key, f]))
  const given = new Map<string, string | number | SubmittedFile>()
  const seen = new Set<string>()
  const bad = (key: string, message: string) => details.push({ path: pathOf(key), message: `${pathOf(key)} ${message}` })
  for (const [key, raw] of answers) {
    if (key === HONEYPOT) continue
    const f = byKey.get(key)
    if (!f) {
      bad(key, 'is not a field of this form.')
      continue
    }
    if (seen.has(key)) {
      bad(key, 'is sent more than once.')
      continue
    }
    seen.add(key)
    const checked = answerOf(f, raw)
    if ('error' in checked) bad(key, checked.error)
    else if (checked.value !== undefined) given.set(key, checked.value)
  }
  for (const file of files) {
    const f = byKey.get(file.key)
    if (f?.type !== 'file') bad(file.key, f ? 'is not a file field: send its answer as text.' : 'is not a field of this form.')
    else if (seen.has(file.key)) bad(file.key, 'is sent more than once.')
    else given.set(file.key, file)
    seen.add(file.key)
  }
  for (const f of fields)
    if (f.required && !given.has(f.key) && !details.some((d) => d.path === f.key))
      bad(f.key, f.type === 'file' ? `is required: attach a file ("${f.label}").` : `is required ("${f.label}").`)
  // At most 50 problems: a body of a million unknown keys is not answered with a million details.
  if (details.length) throw invalidBody(details.slice(0, 50))
  return given
}

/**
 * Text as Markdown shows it and nothing more: every ASCII punctuation character escaped with a backslash (CommonMark
 * lets any of them be), so an answer cannot open a link, an image, raw HTML, emphasis, a heading or a list; each line
 * break kept, indented by `indent` so it stays inside its list item.
 */
export function markdownText(text: string, indent = ''): string {
  return text
    .split('\n')
    .map((line) => line.replace(/[!-/:-@[-`{-~]/g, (c) => `\\${c}`))
    .join(`\n${indent}`)
}

/** A card title from an answer: one line, at most 500 characters. */
const titleOf = (text: string) => [...text.replace(/\s+/g, ' ').trim()].slice(0, 500).join('')

const MAX_DESCRIPTION = 100_000

/** The create of the card a submission makes: its mapped answers in place, the others listed in the description. */
function cardBody(form: FormsTable, fields: readonly FormField[], given: Map<string, string | number | SubmittedFile>) {
  const text = (v: string | number | SubmittedFile) => (typeof v === 'object' ? v.name : String(v))
  let title = ''
  const parts: string[] = []
  const listed: string[] = []
  const xattr: Record<string, string | number> = {}
  let due_date: string | undefined
  let priority: number | undefined
  for (const f of fields) {
    const v = given.get(f.key)
    if (v === undefined) continue
    if (f.maps_to === 'title') title = titleOf(text(v))
    else if (f.maps_to === 'description') parts.push(markdownText(text(v)))
    else if (f.maps_to === 'due_date') due_date = String(v)
    else if (f.maps_to === 'priority') priority = typeof v === 'number' ? v : PRIORITY_NAMES.indexOf(fold(String(v)) as (typeof PRIORITY_NAMES)[number])
    else if (f.maps_to?.startsWith('xattr.')) xattr[f.maps_to.slice(6)] = typeof v === 'object' ? v.name : v
    else listed.push(`- **${markdownText(f.label)}**: ${markdownText(text(v), '  ')}${typeof v === 'object' ? ' \\(attached\\)' : ''}`)
  }
  if (listed.length) parts.push(listed.join('\n'))
  const description = parts.join('\n\n')
  if (description.length > MAX_DESCRIPTION) {
    // Named by the field with the longest answer: the one to shorten.
    const longest = [...given].filter(([, v]) => typeof v === 'string').sort((a, b) => String(b[1]).length - String(a[1]).length)[0]
    throw invalidBody([
      {
        path: longest?.[0] ?? 'fields',
        message: `The answers are too long together for one card (${thousands(MAX_DESCRIPTION)} characters); shorten this one.`,
      },
    ])
  }
  return {
    board: form.board_id,
    ...(form.list_id ? { list: form.list_id } : {}),
    title: title || titleOf(`${form.name} submission`),
    ...(description ? { description } : {}),
    ...(due_date !== undefined ? { due_date } : {}),
    ...(priority !== undefined && priority >= 0 ? { priority } : {}),
    ...(Object.keys(xattr).length ? { xattr } : {}),
  }
}

/** The card's refusal, its paths turned into the keys of the fields that filled them (a custom field's value, a date). */
function asFormDetails(err: unknown, fields: readonly FormField[]): unknown {
  if (!(err instanceof HttpError) || err.status !== 422 || !err.details) return err
  const byTarget = new Map(fields.flatMap((f) => (f.maps_to ? [[f.maps_to, f.key] as const] : [])))
  return invalidBody(
    err.details.map((d) => {
      const key = byTarget.get(d.path)
      return key ? { path: key, message: d.message.replace(d.path, key) } : d
    }),
  )
}

/** The form as the actor of what a submission does: it sees its own board only, and is named by its id and name. */
function formActor(form: FormsTable): Actor {
  const as = { id: form.id, name: form.name, kind: 'form' as const }
  // A stand-in that matches no member row and is never written: visibility and attribution read `run`.
  const user = { id: `form:${form.id}`, email: '', name: form.name, role: 'member' as const, kind: 'human' as const, created_at: form.created_at }
  return { user, tokenId: '', permission: 'write', run: { id: `form:${form.id}`, board: form.board_id, as } }
}

/** The card of a submission, as the form; a refusal of the card's names the fields that filled the refused values. */
async function makeCard(deps: Deps, tx: Tx, form: FormsTable, fields: readonly FormField[], body: ReturnType<typeof cardBody>) {
  try {
    return (await createCardIn(deps, tx, formActor(form), checkedInput(CreateCardBody, body))).card
  } catch (err) {
    throw asFormDetails(err, fields)
  }
}

/** The form as it is now, inside the transaction: closed, deleted or trashed since the request began is a 404 too. */
async function stillOpen(q: Q, slug: string, id: string): Promise<FormsTable> {
  const form = await openFormAt(q, slug)
  if (!form || form.id !== id) throw notFound('form')
  return form
}

/**
 * Makes the card of a submission, in one transaction with its events, and gives the files to it; answers the
 * submission's id (the card's) and the form's thank-you message. Throws 422 (naming the key) for a refused answer, 404
 * when the form closed meanwhile. The caller discards the files when this throws.
 */
export function submitForm(
  deps: Deps,
  slug: string,
  formId: string,
  answers: readonly [string, Answer][],
  files: readonly SubmittedFile[],
): Promise<SubmissionView> {
  return deps.db.tx(async (tx) => {
    const form = await stillOpen(tx.q, slug, formId)
    const fields = fieldsOf(form)
    const body = cardBody(form, fields, checkAnswers(fields, answers, files))
    const card = await makeCard(deps, tx, form, fields, body)
    for (const file of files) {
      const { id, size, sha256 } = file.stored
      if (!(await markComplete(tx.q, id, size, sha256, { card_id: card.id }))) throw new Error(`the submitted file ${id} is gone`)
    }
    return { id: card.id, message: thankYou(form) }
  })
}

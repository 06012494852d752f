// Forms: a board's members read them; its admins (and workspace owners and admins) create, change and delete them, each
// write one transaction with its event. Slugs are unique in the workspace: one made from the name gets a number when
// taken, one asked for is a 409. A field's mapping must name a card field or a custom field of the board that takes its
// answers (422 naming `fields.<i>.maps_to`). Submissions are submit.ts.
import { type Actor, isAdmin } from '../../access/roles.js'
import { type SeenBoard, visibleBoard, visibleOnBoard } from '../../access/visibility.js'
import { isoAt } from '../../clock.js'
import type { Q } from '../../db/database.js'
import type { FormsTable } from '../../db/types.js'
import type { Deps } from '../../deps.js'
import { emitEvent } from '../../events/emit.js'
import { conflict, type ErrorDetail, forbidden, invalidBody, notFound } from '../../errors.js'
import { newId } from '../../ids.js'
import { listPage, parseExpand, type ListParams } from '../../query/list-page.js'
import { expandBoard } from '../boards/present.js'
import { PRIORITY_NAMES } from '../cards/schema.js'
import { getList } from '../lists/published.js'
import { fieldsOfBoards, optionsOfFields } from '../xattr/published.js'
import { formEventData, formView } from './present.js'
import { FORM_LIST } from './query.js'
import type { CreateFormInput, FieldType, FormField, FormFieldInput, FormView, UpdateFormInput } from './schema.js'
import { deleteFormRow, getForm, getFormBySlug, insertForm, takenSlugs, updateFormRow, visibleFormsQuery } from './store.js'

const visibleForm = async (q: Q, actor: Actor, id: string): Promise<FormsTable> => visibleOnBoard(q, actor, await getForm(q, id), 'form')

/** The board, if the actor sees it and may manage its forms: 404 when not seen, 403 for a member who is not its admin. */
async function boardToManage(q: Q, actor: Actor, boardId: string): Promise<SeenBoard> {
  const board = await visibleBoard(q, actor, boardId)
  if (!isAdmin(actor) && board.my_role !== 'admin') throw forbidden("Only the board's admins and workspace owners and admins manage its forms.")
  return board
}

export async function getFormFor(deps: Deps, actor: Actor, id: string, expand?: string) {
  const { q } = deps.db
  const row = await visibleForm(q, actor, id)
  return (await expandBoard(q, [formView(deps.config, row)], parseExpand(expand, FORM_LIST.expand)))[0]
}

/** Forms of the boards the caller sees, or of one board. */
export function listForms(deps: Deps, actor: Actor, params: ListParams & { board?: string }) {
  const { q } = deps.db
  return listPage(
    deps.db,
    visibleFormsQuery(q, actor.user, params.board),
    FORM_LIST,
    params,
    (rows: FormsTable[], expand) =>
      expandBoard(
        q,
        rows.map((r) => formView(deps.config, r)),
        expand,
      ),
    { anchored: Boolean(params.board) },
  )
}

/** A slug made from a name: ASCII letters and digits (accents dropped), other runs one hyphen; "form" when nothing is left. */
export function slugOf(name: string): string {
  const base = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 56)
    .replace(/-+$/, '')
  return base || 'form'
}

/** The name's slug, or the first free one of `<slug>-2`, `<slug>-3`, ... (checked twenty at a time). */
async function freeSlug(q: Q, name: string): Promise<string> {
  const base = slugOf(name)
  for (let n = 1; ; n += 20) {
    const candidates = Array.from({ length: 20 }, (_, i) => (n + i === 1 ? base : `${base}-${n + i}`))
    const taken = await takenSlugs(q, candidates)
    const free = candidates.find((c) => !taken.has(c))
    if (free) return free
  }
}

const slugTaken = (slug: string) => conflict(`The address "${slug}" is taken by another form; choose another slug.`)

/** Which field types may fill each card field. */
const CARD_TARGETS: Record<string, readonly FieldType[]> = {
  title: ['text', 'email', 'select'],
  description: ['text', 'long_text', 'email', 'select'],
  due_date: ['date'],
  priority: ['number', 'select'],
}
/** Which custom field types take each field type's answers. */
const XATTR_TARGETS: Record<FieldType, readonly string[]> = {
  text: ['text', 'url'],
  long_text: ['text'],
  email: ['text'],
  number: ['number'],
  date: ['date'],
  select: ['select', 'text'],
  file: [],
}
const fold = (s: string) => s.toLowerCase()

/**
 * The fields as stored, or 422 with a detail per problem, each naming `fields.<i>.<property>`: a key used twice,
 * options on a type other than select (or none on a select), options repeated, a mapping that is unknown, used twice,
 * or does not take the field's answers, and (naming `fields`) a required custom field of the board no required field fills.
 */
async function checkFields(q: Q, boardId: string, input: readonly FormFieldInput[]): Promise<FormField[]> {
  const details: ErrorDetail[] = []
  const seenKeys = new Set<string>()
  const targets = new Map<string, number>()
  const boardFields = await fieldsOfBoards(q, [boardId])
  const byKey = new Map(boardFields.map((f) => [f.key, f]))
  const options = await optionsOfFields(
    q,
    input.flatMap((f) => (f.type === 'select' && f.maps_to?.startsWith('xattr.') ? (byKey.get(f.maps_to.slice(6))?.id ?? []) : [])),
  )
  input.forEach((f, i) => {
    const at = (prop: string, message: string) => details.push({ path: `fields.${i}.${prop}`, message: `fields.${i}.${prop} ${message}` })
    if (seenKeys.has(f.key)) at('key', `"${f.key}" is the key of an earlier field; keys are unique in a form.`)
    seenKeys.add(f.key)
    if (f.type === 'select') {
      if (!f.options) at('options', 'is required for a select field.')
      else if (new Set(f.options.map(fold)).size !== f.options.length) at('options', 'must be distinct.')
    } else if (f.options !== undefined) at('options', 'is only for select fields.')
    const to = f.maps_to
    if (to === null) return
    if (targets.has(to)) return at('maps_to', `${to} is filled by fields.${targets.get(to)} already; each target at most once.`)
    targets.set(to, i)
    if (to.startsWith('xattr.')) {
      const field = byKey.get(to.slice(6))
      if (!field) return at('maps_to', `${to}: no custom field with this key on the board.`)
      if (!XATTR_TARGETS[f.type].includes(field.type)) return at('maps_to', `${to} is a ${field.type} field, which does not take ${f.type} answers.`)
      if (field.type === 'select' && f.options) {
        const known = new Set(options.filter((o) => o.field_id === field.id).map((o) => fold(o.name)))
        const missing = f.options.filter((o) => !known.has(fold(o)))
        if (missing.length) at('maps_to', `${to} has no option ${JSON.stringify(missing[0])}; every option of the field must be one of its options.`)
      }
      return
    }
    const types = CARD_TARGETS[to]
    if (!types) return at('maps_to', 'must be title, description, due_date, priority, xattr.<key> or null.')
    if (!types.includes(f.type)) return at('maps_to', `${to} takes ${types.join(', ')} fields, not ${f.type}.`)
    if (to === 'priority' && f.type === 'select' && f.options?.some((o) => !(PRIORITY_NAMES as readonly string[]).includes(fold(o))))
      at('maps_to', `priority: a select's options must be priority names (${PRIORITY_NAMES.join(', ')}).`)
  })
  // A card the board cannot take (a required custom field left empty) would refuse every submission.
  for (const f of boardFields) {
    if (f.required !== 1 || f.type === 'rollup' || f.type === 'formula') continue
    const filler = input.find((x) => x.maps_to === `xattr.${f.key}`)
    if (!filler?.required)
      details.push({ path: 'fields', message: `The board requires the custom field ${f.key}: a required field of the form must map to xattr.${f.key}.` })
  }
  if (details.length) throw invalidBody(details)
  return input.map((f) => ({
    key: f.key,
    label: f.label,
    type: f.type,
    required: f.required,
    ...(f.type === 'select' ? { options: f.options } : {}),
    maps_to: f.maps_to,
  }))
}

/** The list must be one of the board's (422 naming `list`). */
async function checkList(q: Q, boardId: string, listId: string | null | undefined): Promise<void> {
  if (listId == null) return
  if ((await getList(q, listId))?.board_id !== boardId) throw invalidBody([{ path: 'list', message: 'list: no such list on this board.' }])
}

export function createForm(deps: Deps, actor: Actor, input: CreateFormInput): Promise<FormView> {
  return deps.db.tx(async (tx) => {
    const { q } = tx
    const board = await boardToManage(q, actor, input.board)
    await checkList(q, board.id, input.list)
    const fields = await checkFields(q, board.id, input.fields)
    if (input.slug !== undefined && (await getFormBySlug(q, input.slug))) throw slugTaken(input.slug)
    const at = isoAt(deps.clock.now())
    const row: FormsTable = {
      id: newId(),
      board_id: board.id,
      list_id: input.list ?? null,
      name: input.name,
      description: input.description ?? '',
      slug: input.slug ?? (await freeSlug(q, input.name)),
      open: input.open === false ? 0 : 1,
      fields: JSON.stringify(fields),
      thank_you: input.thank_you ?? '',
      created_at: at,
      updated_at: at,
    }
    await insertForm(q, row)
    await emitEvent(deps, tx, { name: 'form.created', boardId: board.id, data: formEventData(row, board), actor })
    return formView(deps.config, row)
  })
}

export function updateForm(deps: Deps, actor: Actor, id: string, input: UpdateFormInput): Promise<FormView> {
  return deps.db.tx(async (tx) => {
    const { q } = tx
    const form = await visibleForm(q, actor, id)
    const board = await boardToManage(q, actor, form.board_id)
    const set: Partial<FormsTable> = {}
    if (input.name !== undefined) set.name = input.name
    if (input.description !== undefined) set.description = input.description
    if (input.thank_you !== undefined) set.thank_you = input.thank_you
    if (input.open !== undefined) set.open = input.open ? 1 : 0
    if (input.list !== undefined) {
      await checkList(q, board.id, input.list)
      set.list_id = input.list
    }
    if (input.fields !== undefined) set.fields = JSON.stringify(await checkFields(q, board.id, input.fields))
    if (input.slug !== undefined && input.slug !== form.slug) {
      if (await getFormBySlug(q, input.slug)) throw slugTaken(input.slug)
      set.slug = input.slug
    }
    const changed = Object.entries(set).some(([k, v]) => form[k as keyof FormsTable] !== v)
    if (!changed) return formView(deps.config, form)
    await updateFormRow(q, id, { ...set, updated_at: isoAt(deps.clock.now()) })
    const row = (await getForm(q, id))!
    await emitEvent(deps, tx, { name: 'form.updated', boardId: board.id, data: formEventData(row, board), actor })
    return formView(deps.config, row)
  })
}

export function deleteForm(deps: Deps, actor: Actor, id: string): Promise<void> {
  return deps.db.tx(async (tx) => {
    const form = await visibleForm(tx.q, actor, id)
    const board = await boardToManage(tx.q, actor, form.board_id)
    if (!(await deleteFormRow(tx.q, id))) throw notFound('form')
    await emitEvent(deps, tx, { name: 'form.deleted', boardId: board.id, data: formEventData(form, board), actor })
  })
}

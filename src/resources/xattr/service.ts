// Custom fields: a board's field definitions. Whoever may manage a board's tags manages its fields (members with a
// write token, owners and admins); whoever sees the board reads them. Values live on cards (values.ts). Each change of
// a definition emits its xattr_field event; one that takes values off cards (the field deleted, options dropped) also
// announces each such card with card.updated naming `xattr.<key>`, in the same transaction.
import type { Actor } from '../../access/roles.js'
import { visibleBoard, visibleOnBoard } from '../../access/visibility.js'
import { isoAt } from '../../clock.js'
import type { Q } from '../../db/database.js'
import type { XattrFieldsTable, XattrOptionsTable } from '../../db/types.js'
import type { Deps } from '../../deps.js'
import { emitEvent } from '../../events/emit.js'
import { conflict, notFound, unprocessable, type ErrorDetail } from '../../errors.js'
import { newId } from '../../ids.js'
import { listPage, type ListParams } from '../../query/list-page.js'
import { expandBoard } from '../boards/present.js'
import { lockBoard } from '../boards/published.js'
import { announceCardsIn } from '../cards/service.js'
import { FormulaError, parseFormula } from './formula.js'
import { changedAttributes, fieldEventData, fieldView, fieldViews } from './present.js'
import { XATTR_FIELD_LIST } from './query.js'
import {
  COMPUTED_TYPES,
  KEY_PATTERN,
  MAX_FIELDS_PER_BOARD,
  type CreateXattrFieldInput,
  type UpdateXattrFieldInput,
  type XattrFieldSpec,
  type XattrFieldView,
  type XattrType,
} from './schema.js'
import {
  cardsHoldingValues,
  deleteFieldRow,
  deleteOptions,
  fieldsOfBoard,
  getField,
  insertField,
  insertOptions,
  lastFieldPosition,
  optionsOfFields,
  updateFieldRow,
  updateOptionRow,
  visibleFieldsQuery,
} from './store.js'

const invalid = (details: ErrorDetail[]) => unprocessable('The request body is not valid.', details)
const OPTION_TYPES: readonly string[] = ['select', 'multi_select']

/** `Story points` → `story_points`: ASCII letters and digits kept (accents dropped), the rest one `_`. */
export function keyFromName(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 60)
    .replace(/_+$/, '')
  return /^[a-z]/.test(slug) ? slug : slug ? `f_${slug}` : ''
}

const visibleField = async (q: Q, actor: Actor, id: string): Promise<XattrFieldsTable> => visibleOnBoard(q, actor, await getField(q, id), 'custom field')

export async function getFieldFor(deps: Deps, actor: Actor, id: string): Promise<XattrFieldView> {
  const { q } = deps.db
  return (await fieldViews(q, [await visibleField(q, actor, id)]))[0]
}

/** The fields of the boards the caller sees, or of one board. */
export function listFields(deps: Deps, actor: Actor, params: ListParams & { board?: string }) {
  const { q } = deps.db
  return listPage(
    deps.db,
    visibleFieldsQuery(q, actor.user, params.board),
    XATTR_FIELD_LIST,
    params,
    async (rows: XattrFieldsTable[], expand) => expandBoard(q, await fieldViews(q, rows), expand),
    { anchored: Boolean(params.board) },
  )
}

type OptionInput = NonNullable<CreateXattrFieldInput['options']>[number]
const optionParts = (o: OptionInput) => (typeof o === 'string' ? { name: o.trim(), color: undefined, id: undefined } : o)

/** The options of a select field as given: names unique per field (case-insensitively), ids only of kept options. */
function checkOptions(input: readonly OptionInput[], existing: readonly XattrOptionsTable[], details: ErrorDetail[]) {
  const seen = new Set<string>()
  const parts = input.map(optionParts)
  parts.forEach((o, i) => {
    const folded = o.name.toLowerCase()
    if (seen.has(folded)) details.push({ path: `options.${i}.name`, message: `Option names must be unique; "${o.name}" comes twice.` })
    seen.add(folded)
    if (o.id !== undefined && !existing.some((e) => e.id === o.id)) details.push({ path: `options.${i}.id`, message: 'No such option of this field.' })
  })
  return parts
}

/** Checks what a field's type allows (options, rollup, formula, required) against the board's other fields. */
function checkDefinition(
  type: XattrType,
  input: { options?: unknown; rollup?: CreateXattrFieldInput['rollup']; formula?: string; required?: boolean },
  others: readonly XattrFieldsTable[],
  details: ErrorDetail[],
  creating: boolean,
) {
  if (input.options !== undefined && !OPTION_TYPES.includes(type))
    details.push({ path: 'options', message: 'Only select and multi_select fields have options.' })
  if (input.rollup !== undefined && type !== 'rollup') details.push({ path: 'rollup', message: 'Only a rollup field has a rollup.' })
  if (input.formula !== undefined && type !== 'formula') details.push({ path: 'formula', message: 'Only a formula field has a formula.' })
  if (input.required && COMPUTED_TYPES.includes(type))
    details.push({ path: 'required', message: 'A rollup or formula field is computed and cannot be required.' })
  if (creating && type === 'rollup' && input.rollup === undefined)
    details.push({ path: 'rollup', message: 'A rollup field needs `rollup: { field, over, fn }`.' })
  if (creating && type === 'formula' && input.formula === undefined) details.push({ path: 'formula', message: 'A formula field needs `formula`.' })
  if (input.rollup && type === 'rollup') {
    const source = others.find((f) => f.key === input.rollup!.field)
    if (!source || source.type !== 'number') details.push({ path: 'rollup.field', message: 'Must be the key of a number field of the board.' })
  }
  if (input.formula !== undefined && type === 'formula') {
    try {
      parseFormula(input.formula, (key) => {
        const f = others.find((o) => o.key === key)
        if (!f) return `unknown field key "${key}"; a formula reads number and rollup fields of the board, and min, max and round`
        if (f.type === 'formula') return `"${key}" is a formula: a formula cannot read another formula`
        if (f.type !== 'number' && f.type !== 'rollup') return `"${key}" is a ${f.type} field; a formula reads number and rollup fields only`
        return undefined
      })
    } catch (err) {
      if (!(err instanceof FormulaError)) throw err
      details.push({ path: 'formula', message: `The formula does not parse: ${err.message}.` })
    }
  }
}

export function createField(deps: Deps, actor: Actor, input: CreateXattrFieldInput): Promise<XattrFieldView> {
  return deps.db.tx(async (tx) => {
    const { q } = tx
    const board = await visibleBoard(q, actor, input.board)
    await lockBoard(q, board.id) // two fields of one key, made at once, cannot both pass the check
    const details: ErrorDetail[] = []
    const key = input.key ?? keyFromName(input.name)
    if (!KEY_PATTERN.test(key)) details.push({ path: 'key', message: 'No key can be made from this name; give `key`, a slug such as `story_points`.' })
    const others = await fieldsOfBoard(q, board.id)
    if (others.length >= MAX_FIELDS_PER_BOARD) details.push({ path: 'board', message: `A board has at most ${MAX_FIELDS_PER_BOARD} custom fields.` })
    checkDefinition(input.type, input, others, details, true)
    const options = checkOptions(input.options ?? [], [], details)
    if (details.length) throw invalid(details)
    if (others.some((f) => f.key === key)) throw conflict(`The board already has a custom field with the key "${key}".`)
    const at = isoAt(deps.clock.now())
    const row: XattrFieldsTable = {
      id: newId(),
      board_id: board.id,
      name: input.name,
      key,
      type: input.type,
      required: input.required ? 1 : 0,
      position: input.position ?? (await lastFieldPosition(q, board.id)) + 1,
      rollup: input.rollup ? JSON.stringify({ field: input.rollup.field, over: input.rollup.over, fn: input.rollup.fn }) : null,
      formula: input.formula ?? null,
      created_at: at,
      updated_at: at,
    }
    await insertField(q, row)
    const optionRows = options.map((o, i) => ({ id: newId(), field_id: row.id, name: o.name, color: o.color ?? null, position: i + 1 }))
    await insertOptions(q, optionRows)
    const view = fieldView(row, optionRows)
    await emitEvent(deps, tx, { name: 'xattr_field.created', boardId: board.id, data: fieldEventData(view, board), actor })
    return view
  })
}

export function updateField(deps: Deps, actor: Actor, id: string, input: UpdateXattrFieldInput): Promise<XattrFieldView> {
  return deps.db.tx(async (tx) => {
    const { q } = tx
    const field = await visibleField(q, actor, id)
    const board = await visibleBoard(q, actor, field.board_id)
    await lockBoard(q, field.board_id)
    const type = field.type as XattrType
    const details: ErrorDetail[] = []
    const others = (await fieldsOfBoard(q, field.board_id)).filter((f) => f.id !== id)
    checkDefinition(type, { ...input, required: input.required ?? field.required === 1 }, others, details, false)
    const existing = await optionsOfFields(q, [id])
    const options = input.options && OPTION_TYPES.includes(type) ? checkOptions(input.options, existing, details) : undefined
    if (details.length) throw invalid(details)
    if (input.key !== undefined && others.some((f) => f.key === input.key)) throw conflict(`The board already has a custom field with the key "${input.key}".`)
    const set: Partial<XattrFieldsTable> = { updated_at: isoAt(deps.clock.now()) }
    if (input.name !== undefined) set.name = input.name
    if (input.key !== undefined) set.key = input.key
    if (input.required !== undefined) set.required = input.required ? 1 : 0
    if (input.position !== undefined) set.position = input.position
    if (input.rollup !== undefined) set.rollup = JSON.stringify({ field: input.rollup.field, over: input.rollup.over, fn: input.rollup.fn })
    if (input.formula !== undefined) set.formula = input.formula
    const before = fieldView(field, existing)
    await updateFieldRow(q, id, set)
    let losing: string[] = []
    if (options) {
      const kept = new Set(options.flatMap((o) => (o.id ? [o.id] : [])))
      const dropped = existing.filter((e) => !kept.has(e.id)).map((e) => e.id)
      losing = await cardsHoldingValues(q, id, dropped)
      await deleteOptions(q, id, dropped)
      const added: XattrOptionsTable[] = []
      for (const [i, o] of options.entries()) {
        if (o.id) await updateOptionRow(q, o.id, { name: o.name, ...(o.color !== undefined ? { color: o.color } : {}), position: i + 1 })
        else added.push({ id: newId(), field_id: id, name: o.name, color: o.color ?? null, position: i + 1 })
      }
      await insertOptions(q, added)
    }
    const view = (await fieldViews(q, [(await getField(q, id))!]))[0]
    await emitEvent(deps, tx, {
      name: 'xattr_field.updated',
      boardId: board.id,
      data: { ...fieldEventData(view, board), changes: changedAttributes(before, view) },
      actor,
    })
    // The cards that held a dropped option lost it (under the field's key as it is now).
    await announceCardsIn(deps, tx, actor, losing, [`xattr.${view.key}`])
    return view
  })
}

/**
 * Deletes a field and, with it, its options and every card's value of it; each card not in the trash that held one
 * is announced with card.updated naming `xattr.<key>`, in the same transaction.
 */
export function deleteField(deps: Deps, actor: Actor, id: string): Promise<void> {
  return deps.db.tx(async (tx) => {
    const { q } = tx
    const field = await visibleField(q, actor, id)
    const board = await visibleBoard(q, actor, field.board_id)
    const view = (await fieldViews(q, [field]))[0]
    const holding = await cardsHoldingValues(q, id)
    if (!(await deleteFieldRow(q, id))) throw notFound('custom field')
    await emitEvent(deps, tx, { name: 'xattr_field.deleted', boardId: board.id, data: fieldEventData(view, board), actor })
    await announceCardsIn(deps, tx, actor, holding, [`xattr.${view.key}`])
  })
}

/** A board's fields as a board template holds them (options by name), in order. */
export async function fieldSpecsOfBoard(q: Q, boardId: string): Promise<XattrFieldSpec[]> {
  const fields = await fieldsOfBoard(q, boardId)
  const views = await fieldViews(q, fields)
  return views.map((f) => ({
    name: f.name,
    key: f.key,
    type: f.type,
    required: f.required,
    options: f.options.map((o) => ({ name: o.name, color: o.color })),
    rollup: f.rollup,
    formula: f.formula,
  }))
}

/** Checks a board template's fields as a create checks them, against each other; problems under `path.<i>`. */
export function checkFieldSpecs(specs: readonly XattrFieldSpec[], details: ErrorDetail[], path: string): void {
  const rows = specs.map((f) => ({ key: f.key, type: f.type }) as XattrFieldsTable)
  specs.forEach((f, i) => {
    const own: ErrorDetail[] = []
    const others = rows.filter((_, j) => j !== i)
    if (others.some((o) => o.key === f.key)) own.push({ path: 'key', message: `Another field has the key "${f.key}".` })
    checkDefinition(
      f.type,
      { options: f.options?.length ? f.options : undefined, rollup: f.rollup ?? undefined, formula: f.formula ?? undefined, required: f.required },
      others,
      own,
      true,
    )
    checkOptions(f.options ?? [], [], own)
    for (const d of own) details.push({ path: `${path}.${i}.${d.path}`, message: d.message })
  })
}

/**
 * Makes the fields of a board template (or a board being cloned) on a new board, every id new, checked as a create
 * checks them against each other: problems go to `details` under `path.<i>` and nothing is written when there are any.
 */
export async function fieldsFromSpecs(q: Q, boardId: string, specs: readonly XattrFieldSpec[], at: string, details: ErrorDetail[], path: string) {
  const rows: XattrFieldsTable[] = specs.map((f, i) => ({
    id: newId(),
    board_id: boardId,
    name: f.name,
    key: f.key,
    type: f.type,
    required: f.required ? 1 : 0,
    position: i + 1,
    rollup: f.rollup ? JSON.stringify({ field: f.rollup.field, over: f.rollup.over, fn: f.rollup.fn }) : null,
    formula: f.formula ?? null,
    created_at: at,
    updated_at: at,
  }))
  const before = details.length
  checkFieldSpecs(specs, details, path)
  if (details.length > before) return []
  const views: XattrFieldView[] = []
  for (const [i, row] of rows.entries()) {
    await insertField(q, row)
    const opts = (specs[i].options ?? []).map((o, n) => ({ id: newId(), field_id: row.id, name: o.name, color: o.color ?? null, position: n + 1 }))
    await insertOptions(q, opts)
    views.push(fieldView(row, opts))
  }
  return views
}

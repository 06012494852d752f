// Custom field definitions in API shape, their options batch-loaded for a page.
import type { Q } from '../../db/database.js'
import type { XattrFieldsTable, XattrOptionsTable } from '../../db/types.js'
import type { EventData } from '../../events/fields.js'
import type { XattrFieldView } from './schema.js'
import { optionsOfFields } from './store.js'

export const parseRollup = (text: string | null): XattrFieldView['rollup'] => (text === null ? null : (JSON.parse(text) as XattrFieldView['rollup']))

export const fieldView = (f: XattrFieldsTable, options: readonly XattrOptionsTable[]): XattrFieldView => ({
  id: f.id,
  board: f.board_id,
  name: f.name,
  key: f.key,
  type: f.type as XattrFieldView['type'],
  options: options.map((o) => ({ id: o.id, name: o.name, color: o.color })),
  required: f.required === 1,
  position: f.position,
  rollup: parseRollup(f.rollup),
  formula: f.formula,
  created: f.created_at,
  updated: f.updated_at,
})

/** The `data` of a field's events (without `actor`, which emitEvent adds). */
export const fieldEventData = (f: XattrFieldView, board: { id: string; name: string }): EventData<'xattr_field.created'> => ({
  id: f.id,
  name: f.name,
  key: f.key,
  type: f.type,
  options: f.options,
  required: f.required,
  position: f.position,
  rollup: f.rollup,
  formula: f.formula,
  board: { id: board.id, name: board.name },
})

/** The attributes of a field an update changed, by name (options compared as the whole ordered list). */
export const changedAttributes = (before: XattrFieldView, after: XattrFieldView): string[] =>
  (['name', 'key', 'options', 'required', 'position', 'rollup', 'formula'] as const).filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]))

/** Fields in API shape; their options come from one query for the page. */
export async function fieldViews(q: Q, rows: XattrFieldsTable[]): Promise<XattrFieldView[]> {
  const options = groupBy(
    await optionsOfFields(
      q,
      rows.map((r) => r.id),
    ),
    (o) => o.field_id,
  )
  return rows.map((r) => fieldView(r, options.get(r.id) ?? []))
}

/** Rows by a key, each group in the rows' order. */
export function groupBy<T>(rows: readonly T[], keyOf: (row: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>()
  for (const r of rows) {
    const k = keyOf(r)
    const group = out.get(k)
    if (group) group.push(r)
    else out.set(k, [r])
  }
  return out
}

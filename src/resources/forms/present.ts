// Forms in API shape (the record, and what the public address shows), and the `data` of form events.
import { type Config, publicBaseUrl } from '../../config.js'
import { fromJsonColumn } from '../../db/json.js'
import type { FormsTable } from '../../db/types.js'
import type { EventData } from '../../events/fields.js'
import { FormFieldSchema, type FormField, type FormView, type PublicFormView } from './schema.js'

const FieldList = FormFieldSchema.array()
export const fieldsOf = (row: Pick<FormsTable, 'fields'>): FormField[] => fromJsonColumn(FieldList, row.fields)

export const formUrl = (config: Config, slug: string): string => `${publicBaseUrl(config)}/v1/forms/public/${slug}`

export const formView = (config: Config, f: FormsTable): FormView => ({
  id: f.id,
  board: f.board_id,
  list: f.list_id,
  name: f.name,
  description: f.description,
  slug: f.slug,
  url: formUrl(config, f.slug),
  open: f.open === 1,
  fields: fieldsOf(f),
  thank_you: f.thank_you,
  created: f.created_at,
  updated: f.updated_at,
})

/** What anyone with the address sees: the name, the description and the fields without their mappings. */
export const publicFormView = (f: FormsTable): PublicFormView => ({
  name: f.name,
  description: f.description,
  fields: fieldsOf(f).map(({ maps_to: _, ...field }) => field),
})

export const formEventData = (f: FormsTable, board: { id: string; name: string }): EventData<'form.created'> => ({
  id: f.id,
  name: f.name,
  slug: f.slug,
  open: f.open === 1,
  board: { id: board.id, name: board.name },
})

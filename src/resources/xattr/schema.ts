// Custom fields: a board's field definitions (the record and its bodies) and what a card's `xattr` holds.
import { z } from 'zod'
import { name } from '../../http/schemas.js'
import { FORMULA_LIMITS } from './formula.js'

export const XATTR_TYPES = ['text', 'number', 'date', 'boolean', 'select', 'multi_select', 'user', 'url', 'rollup', 'formula'] as const
export const XattrType = z.enum(XATTR_TYPES).meta({
  description:
    'text, number, date (`YYYY-MM-DD` or ISO 8601), boolean, select (one option), multi_select (options), user (a board member), url (http or https), rollup and formula (computed on read, read-only).',
})
export type XattrType = z.infer<typeof XattrType>
/** The types whose values are computed on read and never written. */
export const COMPUTED_TYPES: readonly XattrType[] = ['rollup', 'formula']

export const ROLLUP_OVER = ['subtasks', 'milestone'] as const
export const ROLLUP_FNS = ['sum', 'avg', 'min', 'max', 'count'] as const

/** A field key: a slug unique per board, what `xattr.<key>` names in card bodies, filters, sorts and formulas. */
/** Custom fields a board may have: each card read evaluates all of its board's. */
export const MAX_FIELDS_PER_BOARD = 100
export const KEY_PATTERN = /^[a-z][a-z0-9_]{0,63}$/
const key = z
  .string()
  .regex(KEY_PATTERN, 'Must be a slug: a lower-case letter, then lower-case letters, digits or "_", at most 64 characters.')
  .meta({ description: 'A slug unique per board (`story_points`); made from `name` when left out.' })

const color = z
  .string()
  .regex(/^#[0-9a-fA-F]{6}$/, 'Must be a hex color like #ff8800.')
  .nullable()

export const XattrOptionSchema = z.strictObject({ id: z.string(), name: z.string(), color: z.string().nullable() }).meta({ id: 'XattrOption' })
export const RollupSchema = z
  .strictObject({
    field: z.string().meta({ description: 'Key of a number field of the same board, read on the related cards.' }),
    over: z.enum(ROLLUP_OVER).meta({
      description:
        "subtasks: the card's sub-tasks; milestone: the other cards of the card's milestone. Cards in the trash are left out; with no related values, count is 0 and the others have no value.",
    }),
    fn: z.enum(ROLLUP_FNS).meta({
      description:
        'sum, avg, min, max or count (related cards with a value) of the related values; with no related values, count is 0 and the others have no value.',
    }),
  })
  .meta({ id: 'XattrRollup' })

export const XattrFieldSchema = z
  .strictObject({
    id: z.string(),
    board: z.string(),
    name: z.string(),
    key: z.string(),
    type: XattrType,
    options: z.array(XattrOptionSchema).meta({ description: 'The options of a select or multi_select field, in order; [] for the other types.' }),
    required: z.boolean().meta({ description: 'A card made without a value for it is refused (422); never true for rollup and formula fields.' }),
    position: z.number(),
    rollup: RollupSchema.nullable(),
    formula: z.string().nullable(),
    created: z.string(),
    updated: z.string(),
  })
  .meta({
    id: 'XattrField',
    example: {
      id: '01JDXATTR0000000000000000',
      board: '01JDBOARD0000000000000000',
      name: 'Story points',
      key: 'story_points',
      type: 'number',
      options: [],
      required: false,
      position: 1,
      rollup: null,
      formula: null,
      created: '2026-11-21T12:00:00.000Z',
      updated: '2026-11-21T12:00:00.000Z',
    },
  })
export type XattrFieldView = z.infer<typeof XattrFieldSchema>

const optionInput = z.union([
  z.string().trim().min(1).max(100),
  z.strictObject({
    id: z.string().min(1).optional().meta({ description: 'On update: an existing option to keep (renamed or recolored); new options have none.' }),
    name: z.string().trim().min(1).max(100),
    color: color.optional(),
  }),
])
const options = z
  .array(optionInput)
  .max(100)
  .meta({ description: 'The options of a select or multi_select field: names, or `{ name, color? }` (ids are generated); names unique per field.' })
const formula = z.string().min(1).max(FORMULA_LIMITS.length).meta({
  description:
    'For a formula field: numbers, + - * / ( ), unary minus, keys of number and rollup fields of the board, min(…), max(…), round(x[, decimals]); e.g. `estimate * 2 + risk`. Division by zero or a missing input gives null. A formula cannot read another formula.',
})
const position = z.number().finite()

export const CreateXattrFieldBody = z
  .strictObject({
    board: z.string().min(1).meta({ description: 'The board (record id).' }),
    name,
    key: key.optional(),
    type: XattrType,
    options: options.optional(),
    required: z.boolean().optional(),
    position: position.optional().meta({ description: "Order among the board's fields; default: the end." }),
    rollup: RollupSchema.optional().meta({ description: 'Required for a rollup field, refused for the others.' }),
    formula: formula.optional().meta({ description: 'Required for a formula field, refused for the others.' }),
  })
  .meta({
    id: 'CreateXattrFieldBody',
    example: { board: '01JDBOARD0000000000000000', name: 'Story points', type: 'number' },
  })
export type CreateXattrFieldInput = z.infer<typeof CreateXattrFieldBody>

export const UpdateXattrFieldBody = z
  .strictObject({
    name: name.optional(),
    key: key.optional(),
    options: options.optional().meta({ description: 'The whole list: options named by id are kept, others are new; a dropped option leaves every card.' }),
    required: z.boolean().optional(),
    position: position.optional(),
    rollup: RollupSchema.optional(),
    formula: formula.optional(),
  })
  .meta({ id: 'UpdateXattrFieldBody', example: { name: 'Estimate', required: true } })
export type UpdateXattrFieldInput = z.infer<typeof UpdateXattrFieldBody>

/** A card's custom field values by key, as card bodies take them (`null` clears one). */
export const XattrValuesInput = z
  .record(z.string(), z.unknown())
  .refine((v) => Object.keys(v).length <= 200, 'At most 200 custom fields at once.')
  .meta({
    description:
      'Custom field values by field key (`{ "story_points": 3, "labels": ["Bug"] }`), merged into the card\'s: `null` clears one. A select takes an option id or name, a multi_select a list of them, a user a board member\'s id, a date `YYYY-MM-DD` or ISO 8601, a url an http(s) address. Rollup and formula fields are read-only.',
  })

export const XattrValuesView = z
  .record(z.string(), z.unknown())
  .meta({ description: 'Custom field values by key (`{}` when none); select and multi_select values are option ids; rollups and formulas computed on read.' })

/** A field as a board template holds it: no ids, options by name; rollups and formulas name other fields by key. */
export const XattrFieldSpec = z.strictObject({
  name,
  key: z.string().regex(KEY_PATTERN, 'Must be a slug: a lower-case letter, then lower-case letters, digits or "_", at most 64 characters.'),
  type: XattrType,
  required: z.boolean().optional(),
  options: z
    .array(z.strictObject({ name: z.string().trim().min(1).max(100), color: color.optional() }))
    .max(100)
    .optional(),
  rollup: RollupSchema.nullable().optional(),
  formula: z.string().max(FORMULA_LIMITS.length).nullable().optional(),
})
export type XattrFieldSpec = z.infer<typeof XattrFieldSpec>

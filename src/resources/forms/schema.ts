// Forms: a board's public forms. Anyone with the address fills one in (no token); each accepted submission is a new card.
import { z } from 'zod'
import { name } from '../../http/schemas.js'

export const FIELD_TYPES = ['text', 'long_text', 'number', 'date', 'select', 'email', 'file'] as const
export const FieldType = z.enum(FIELD_TYPES).meta({
  description:
    'text (one line, up to 1,000 characters), long_text (up to 10,000), number, date (`YYYY-MM-DD`), select (one of `options`), email, or file (one file, up to TASKD_MAX_FILE_BYTES, attached to the card; needs a multipart submission).',
})
export type FieldType = z.infer<typeof FieldType>

/** Where a field's answer goes on the card: a card field, a custom field of the board, or (null) the description's list. */
export const MAPS_TO_HELP =
  "title, description, due_date (a date field), priority (a number 0 to 4, or a select whose options are none, low, medium, high, urgent), `xattr.<key>` (a custom field of the board of a compatible type: text for text, long_text and email (text also for url), number for number, date for date, select for a select whose options are all options of the field), or null: the answer goes into the description, in a Markdown list under the field's label. A file field is attached to the card and maps to null. Each target at most once."

export const MAX_FIELDS = 50
export const MAX_OPTIONS = 100
/** The field that must stay empty: a person never sees it, a bot that fills in every input does. */
export const HONEYPOT = '_hp'
export const KEY_PATTERN = /^[a-z][a-z0-9_]{0,63}$/
export const SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/

export const FormFieldSchema = z
  .strictObject({
    key: z.string().meta({ description: 'The name the answer is sent under; unique in the form.' }),
    label: z.string(),
    type: FieldType,
    required: z.boolean(),
    options: z.array(z.string()).optional().meta({ description: 'The choices of a select field, in order (only select fields have them).' }),
    maps_to: z.string().nullable().meta({ description: MAPS_TO_HELP }),
  })
  .meta({ id: 'FormField' })
export type FormField = z.infer<typeof FormFieldSchema>

const EXAMPLE_FIELDS: FormField[] = [
  { key: 'summary', label: 'What went wrong?', type: 'text', required: true, maps_to: 'title' },
  { key: 'details', label: 'Steps to reproduce', type: 'long_text', required: false, maps_to: 'description' },
  { key: 'email', label: 'Your email', type: 'email', required: true, maps_to: null },
  { key: 'severity', label: 'Severity', type: 'select', required: false, options: ['low', 'medium', 'high'], maps_to: 'priority' },
  { key: 'screenshot', label: 'Screenshot', type: 'file', required: false, maps_to: null },
]

export const FormSchema = z
  .strictObject({
    id: z.string(),
    board: z.string(),
    list: z.string().nullable().meta({ description: "The list (record id) submissions go to; null: the board's first list." }),
    name: z.string(),
    description: z.string().meta({ description: 'Plain text shown above the fields.' }),
    slug: z.string().meta({ description: 'The public address: `/v1/forms/public/<slug>`; unique in the workspace.' }),
    url: z
      .string()
      .meta({ description: '{TASKD_BASE_URL}/v1/forms/public/<slug>: the page (HTML) and definition (JSON) anyone may open, and where answers are posted.' }),
    open: z.boolean().meta({ description: 'false closes the form: its public address answers 404 at once.' }),
    fields: z.array(FormFieldSchema),
    thank_you: z.string().meta({ description: 'The message a submitter reads after sending; empty: a default one.' }),
    created: z.string(),
    updated: z.string(),
  })
  .meta({
    id: 'Form',
    example: {
      id: '01JDFORM00000000000000000',
      board: '01JDBOARD0000000000000000',
      list: null,
      name: 'Bug report',
      description: 'Tell us what broke. We read every report.',
      slug: 'bug-report',
      url: 'https://tasks.example.com/v1/forms/public/bug-report',
      open: true,
      fields: EXAMPLE_FIELDS,
      thank_you: 'Thanks! We will look into it.',
      created: '2026-11-21T12:00:00.000Z',
      updated: '2026-11-21T12:00:00.000Z',
    },
  })
export type FormView = z.infer<typeof FormSchema>

const fieldBody = z
  .strictObject({
    key: z
      .string()
      .regex(KEY_PATTERN, 'Must be a slug: a lower-case letter, then lower-case letters, digits or "_", at most 64 characters.')
      .meta({ description: 'The name the answer is sent under; unique in the form.' }),
    label: name.meta({ description: 'What the submitter reads, 1 to 200 characters.' }),
    type: FieldType,
    required: z.boolean().default(false).meta({ description: 'Whether an answer is required (default false).' }),
    options: z
      .array(z.string().trim().min(1).max(200))
      .min(1)
      .max(MAX_OPTIONS)
      .optional()
      .meta({
        description: `The choices of a select field (required for it, refused for the others): 1 to ${MAX_OPTIONS}, each 1 to 200 characters, distinct.`,
      }),
    maps_to: z.string().max(80).nullable().default(null).meta({ description: MAPS_TO_HELP }),
  })
  .meta({ id: 'FormFieldBody' })
export type FormFieldInput = z.infer<typeof fieldBody>

const editable = {
  name: name.meta({ description: 'The form’s title, 1 to 200 characters.' }),
  description: z.string().max(5_000).meta({ description: 'Plain text shown above the fields, up to 5,000 characters.' }),
  slug: z
    .string()
    .regex(SLUG_PATTERN, 'Must be 1 to 64 lower-case letters, digits and inner hyphens.')
    .meta({ description: 'The public address `/v1/forms/public/<slug>`: lower-case letters, digits and inner hyphens, at most 64; unique (409 when taken).' }),
  list: z.string().min(1).nullable().meta({ description: "A list (record id) of the form's board for the new cards; null: the board's first list." }),
  open: z.boolean().meta({ description: 'false closes the form at once (its public address answers 404).' }),
  fields: z
    .array(fieldBody)
    .min(1)
    .max(MAX_FIELDS)
    .meta({ description: `The fields, in order: 1 to ${MAX_FIELDS}.` }),
  thank_you: z.string().max(2_000).meta({ description: 'What a submitter reads after sending, up to 2,000 characters; empty: a default message.' }),
}

export const CreateFormBody = z
  .strictObject({
    board: z.string().min(1).meta({ description: 'The board (record id); only its admins (and workspace owners and admins) manage its forms.' }),
    name: editable.name,
    description: editable.description.optional(),
    slug: editable.slug.optional().meta({ description: 'The public address; made from the name when left out (with a number added when that one is taken).' }),
    list: editable.list.optional(),
    open: editable.open.optional().meta({ description: 'Default true.' }),
    fields: editable.fields,
    thank_you: editable.thank_you.optional(),
  })
  .meta({
    id: 'CreateFormBody',
    example: {
      board: '01JDBOARD0000000000000000',
      name: 'Bug report',
      description: 'Tell us what broke. We read every report.',
      fields: EXAMPLE_FIELDS,
      thank_you: 'Thanks! We will look into it.',
    },
  })
export type CreateFormInput = z.infer<typeof CreateFormBody>

export const UpdateFormBody = z
  .strictObject({
    name: editable.name.optional(),
    description: editable.description.optional(),
    slug: editable.slug.optional(),
    list: editable.list.optional(),
    open: editable.open.optional(),
    fields: editable.fields.optional().meta({ description: 'The whole new list of fields (it replaces the old one).' }),
    thank_you: editable.thank_you.optional(),
  })
  .meta({ id: 'UpdateFormBody', example: { open: false } })
export type UpdateFormInput = z.infer<typeof UpdateFormBody>

/** A field as the public sees it: no mapping (which custom fields a board has is not the public's business). */
export const PublicFormFieldSchema = z
  .strictObject({ key: z.string(), label: z.string(), type: FieldType, required: z.boolean(), options: z.array(z.string()).optional() })
  .meta({ id: 'PublicFormField' })

export const PublicFormSchema = z.strictObject({ name: z.string(), description: z.string(), fields: z.array(PublicFormFieldSchema) }).meta({
  id: 'PublicForm',
  example: {
    name: 'Bug report',
    description: 'Tell us what broke. We read every report.',
    fields: EXAMPLE_FIELDS.map(({ maps_to: _, ...f }) => f),
  },
})
export type PublicFormView = z.infer<typeof PublicFormSchema>

/** A submission as documented (JSON); urlencoded and multipart bodies carry the same names. */
export const SubmitFormBody = z.record(z.string(), z.union([z.string(), z.number(), z.null()])).meta({
  id: 'SubmitFormBody',
  description: `Each field's answer under its key (a number field takes a number or its text; null or "" is no answer). \`${HONEYPOT}\` is the honeypot: leave it out or empty. A file field is sent as a file part of multipart/form-data.`,
  example: { summary: 'Export fails on large boards', details: '1. Open a board with 10,000 cards\n2. Export', email: 'ana@example.com', severity: 'high' },
})

export const SubmissionSchema = z
  .strictObject({
    submission: z.strictObject({
      id: z.string().meta({ description: 'The submission id (quote it when asking about it).' }),
      message: z.string().meta({ description: "The form's thank-you message." }),
    }),
  })
  .meta({ id: 'FormSubmission', example: { submission: { id: '01JDCARD00000000000000000', message: 'Thanks! We will look into it.' } } })
export type SubmissionView = z.infer<typeof SubmissionSchema>['submission']

// /v1/forms: a board's public forms, managed by its admins; the public address itself is public.ts.
import { z } from 'zod'
import { defineRoute } from '../../http/route.js'
import { envelope, idParam } from '../../http/schemas.js'
import { listQuery, pageSchema } from '../../query/list-page.js'
import { BoardSchema } from '../boards/schema.js'
import { FORM_LIST } from './query.js'
import { CreateFormBody, FormSchema, PublicFormSchema, SubmissionSchema, SubmitFormBody, UpdateFormBody } from './schema.js'
import { createForm, deleteForm, getFormFor, listForms, updateForm } from './service.js'

const TAG = 'Forms'
const Form = envelope('form', FormSchema)
const Expanded = FormSchema.extend({ expand: z.strictObject({ board: BoardSchema }).optional() })
const MANAGE = "Only the board's admins (and workspace owners and admins) may; another member of the board gets 403."

export const formRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/forms',
    operationId: 'listForms',
    tag: TAG,
    access: 'read',
    summary: 'List the forms of the visible boards (members of a board read its forms)',
    query: listQuery(FORM_LIST).extend({ board: z.string().optional().meta({ description: 'Only the forms of this board.' }) }),
    responses: { 200: { description: 'A page of forms', schema: pageSchema(Expanded, 'FormPage') } },
    handler: async ({ deps, actor, query }) => ({ status: 200, body: await listForms(deps, actor, query) }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/forms',
    operationId: 'createForm',
    tag: TAG,
    access: 'write',
    summary: 'Create a form on a board: anyone with its address can then send submissions, each a new card',
    description: [
      MANAGE,
      'The slug is made from the name when left out (a number is added when it is taken); a slug asked for that another form has is a 409.',
      'Each field is checked (422 naming `fields.<i>.<property>`): keys unique, options for select fields only, and `maps_to` naming a card field or a custom field (`xattr.<key>`) of the board that takes the field’s answers;',
      'a required custom field of the board must be filled by a required field of the form (422 naming `fields`), or no submission could make a card.',
    ].join(' '),
    body: CreateFormBody,
    errors: [404, 409, 422],
    responses: { 201: { description: 'The form', schema: Form } },
    handler: async ({ deps, actor, body }) => ({ status: 201, body: { form: await createForm(deps, actor, body) } }),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/forms/{id}',
    operationId: 'getForm',
    tag: TAG,
    access: 'read',
    summary: 'Get a form',
    params: idParam,
    query: z.object({ expand: z.string().max(500).optional().meta({ description: 'board' }) }),
    responses: { 200: { description: 'The form', schema: envelope('form', Expanded) } },
    handler: async ({ deps, actor, params, query }) => ({ status: 200, body: { form: await getFormFor(deps, actor, params.id, query.expand) } }),
  }),
  defineRoute({
    method: 'patch',
    path: '/v1/forms/{id}',
    operationId: 'updateForm',
    tag: TAG,
    access: 'write',
    summary: 'Change a form: open or close it (closed, its address answers 404 at once), its fields (the whole list), its address',
    description: `${MANAGE} The fields and the list are checked as on create; a slug another form has is a 409. The cards made earlier stay as they are.`,
    params: idParam,
    body: UpdateFormBody,
    errors: [409, 422],
    responses: { 200: { description: 'The form', schema: Form } },
    handler: async ({ deps, actor, params, body }) => ({ status: 200, body: { form: await updateForm(deps, actor, params.id, body) } }),
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/forms/{id}',
    operationId: 'deleteForm',
    tag: TAG,
    access: 'write',
    summary: 'Delete a form: its address answers 404 at once (the cards it made stay)',
    description: MANAGE,
    params: idParam,
    responses: { 204: { description: 'Deleted' } },
    handler: async ({ deps, actor, params }) => {
      await deleteForm(deps, actor, params.id)
      return { status: 204 }
    },
  }),
]

const documentedOnly = () => {
  throw new Error('documented only: public.ts answers /v1/forms/public/{slug}')
}
const slugParam = z.object({ slug: z.string().meta({ description: "The form's slug." }) })
const PUBLIC_HEADERS =
  "Every answer is `Cache-Control: no-store`; HTML answers carry `Content-Security-Policy: default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'` (no script at all)."

/** `GET /v1/forms/public/{slug}` as documented: public.ts answers it, outside the bearer-token routes. */
export const publicFormDoc = defineRoute({
  method: 'get',
  path: '/v1/forms/public/{slug}',
  operationId: 'getPublicForm',
  tag: TAG,
  access: 'public',
  summary: 'A form, for anyone with its address: no token',
  description: [
    'JSON by default: `{ form: { name, description, fields } }` (each field without its mapping).',
    'With `Accept: text/html`: a plain page with the form, which works with JavaScript off and posts back to this address (multipart/form-data when the form has a file field, else urlencoded), with a hidden honeypot field `_hp`.',
    `An unknown or closed form, or one on a board in the trash, is 404 at once (a small page for text/html). ${PUBLIC_HEADERS}`,
  ].join(' '),
  params: slugParam,
  responses: { 200: { description: 'The form', schema: envelope('form', PublicFormSchema) } },
  handler: documentedOnly,
})

/** `POST /v1/forms/public/{slug}` as documented. */
export const submitFormDoc = defineRoute({
  method: 'post',
  path: '/v1/forms/public/{slug}',
  operationId: 'submitForm',
  tag: TAG,
  access: 'public',
  summary: 'Send a submission: a new card on the form’s board',
  description: [
    'No token. The body is application/json (shown), application/x-www-form-urlencoded or multipart/form-data (needed for a file field: the file as a file part under its key), with each answer under its field’s key;',
    'a JSON or urlencoded body is at most 1 MB, a multipart one 1 MB beside its files, each file at most TASKD_MAX_FILE_BYTES (413 past either).',
    'Every answer is checked against its field (a key the form lacks, a value its type refuses, a required field left empty: 422 naming the key).',
    'The card goes to the form’s list (or the board’s first list), titled by the field mapped to `title` or "<form name> submission"; mapped answers fill their card or custom fields, the others are listed in the description as Markdown (`- **Label**: answer`), with every Markdown character of an answer escaped, so an answer is only ever text; files are attached to the card.',
    'The card has no creator (`created_by` null) and its events carry the actor `{ id, name, kind: "form" }` (the form’s id and name); like the changes of an automation run, they start no event automation.',
    'A non-empty `_hp` (the honeypot) answers the same 201 and keeps nothing. More than 10 submissions a minute to a form from one sender (the client address; behind a proxy see TASKD_TRUST_PROXY) is 429 with Retry-After.',
    `A closed form, or one on a board in the trash, is 404 at once. With Accept: text/html the answer is a page: the thank-you message, or the form again with each problem beside its field. ${PUBLIC_HEADERS}`,
  ].join(' '),
  params: slugParam,
  body: SubmitFormBody,
  errors: [400, 404, 413, 415, 422, 429],
  responses: { 201: { description: 'Accepted: a new card', schema: SubmissionSchema } },
  handler: documentedOnly,
})

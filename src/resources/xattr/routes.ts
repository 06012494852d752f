// /v1/xattr: a board's custom field definitions. The values live on cards (`xattr` on card bodies and views).
import { z } from 'zod'
import { defineRoute } from '../../http/route.js'
import { envelope, idParam } from '../../http/schemas.js'
import { listQuery, pageSchema } from '../../query/list-page.js'
import { BoardSchema } from '../boards/schema.js'
import { XATTR_FIELD_LIST } from './query.js'
import { CreateXattrFieldBody, UpdateXattrFieldBody, XattrFieldSchema } from './schema.js'
import { createField, deleteField, getFieldFor, listFields, updateField } from './service.js'

const Field = envelope('xattr_field', XattrFieldSchema)

const VALUES_HELP =
  'Values live on cards as `xattr: { <key>: value }` (every card view; `{}` when none), set on card create, PATCH (merged by key; `null` clears) and bulk-update-cards; a change emits `card.updated` naming `xattr.<key>`. Cards filter and sort by `xattr.<key>` (`xattr.estimate >= 3`, `xattr.labels ~ "Bug"`, `sort=-xattr.estimate`; cards without a value sort last), read from an index.'

export const xattrRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/xattr',
    operationId: 'listXattrFields',
    tag: 'Custom fields',
    access: 'read',
    summary: 'List the custom fields of the visible boards',
    description: VALUES_HELP,
    query: listQuery(XATTR_FIELD_LIST).extend({ board: z.string().optional().meta({ description: 'Only the fields of this board.' }) }),
    responses: {
      200: {
        description: 'A page of custom fields',
        schema: pageSchema(XattrFieldSchema.extend({ expand: z.strictObject({ board: BoardSchema }).optional() }), 'XattrFieldPage'),
      },
    },
    handler: async ({ deps, actor, query }) => ({ status: 200, body: await listFields(deps, actor, query) }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/xattr',
    operationId: 'createXattrField',
    tag: 'Custom fields',
    access: 'write',
    summary: 'Create a custom field on a board; keys are unique per board (409 on a clash)',
    description: `${VALUES_HELP} A formula is checked when saved (422 naming \`formula\` with the position of the problem). Emits \`xattr_field.created\`.`,
    body: CreateXattrFieldBody,
    errors: [404, 409],
    responses: { 201: { description: 'The custom field', schema: Field } },
    handler: async ({ deps, actor, body }) => ({ status: 201, body: { xattr_field: await createField(deps, actor, body) } }),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/xattr/{id}',
    operationId: 'getXattrField',
    tag: 'Custom fields',
    access: 'read',
    summary: 'Get a custom field',
    params: idParam,
    responses: { 200: { description: 'The custom field', schema: Field } },
    handler: async ({ deps, actor, params }) => ({ status: 200, body: { xattr_field: await getFieldFor(deps, actor, params.id) } }),
  }),
  defineRoute({
    method: 'patch',
    path: '/v1/xattr/{id}',
    operationId: 'updateXattrField',
    tag: 'Custom fields',
    access: 'write',
    summary: 'Rename, re-key, reorder or change the options, rollup or formula of a custom field (its type stays)',
    description:
      'Emits `xattr_field.updated` with `changes` naming the attributes that changed (name, key, options, required, position, rollup, formula). An option left out of `options` is dropped: every card that chose it loses it, and each such card not in the trash is announced with `card.updated` naming `xattr.<key>`, in the same transaction. A new key renames the values on every card (no card event: the field event names `key`).',
    params: idParam,
    body: UpdateXattrFieldBody,
    errors: [409],
    responses: { 200: { description: 'The custom field', schema: Field } },
    handler: async ({ deps, actor, params, body }) => ({ status: 200, body: { xattr_field: await updateField(deps, actor, params.id, body) } }),
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/xattr/{id}',
    operationId: 'deleteXattrField',
    tag: 'Custom fields',
    access: 'write',
    summary: "Delete a custom field and every card's value of it",
    description:
      'Emits `xattr_field.deleted`, and for each card not in the trash that held a value of the field, `card.updated` naming `xattr.<key>` (the value is gone from its `xattr`), all in one transaction. Rollups and formulas that read the field no longer get a value from it.',
    params: idParam,
    responses: { 204: { description: 'Deleted' } },
    handler: async ({ deps, actor, params }) => {
      await deleteField(deps, actor, params.id)
      return { status: 204 }
    },
  }),
]

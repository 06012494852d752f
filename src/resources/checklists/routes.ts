// /v1/checklists: checklists on tasks and their items.
import { z } from 'zod'
import { defineRoute } from '../../http/route.js'
import { envelope, idParam } from '../../http/schemas.js'
import { listQuery, pageSchema } from '../../query/list-page.js'
import { CardSchema } from '../cards/schema.js'
import { CHECKLIST_LIST } from './query.js'
import {
  ChecklistItemSchema,
  ChecklistSchema,
  CreateChecklistBody,
  CreateChecklistItemBody,
  itemParams,
  UpdateChecklistBody,
  UpdateChecklistItemBody,
} from './schema.js'
import {
  addChecklistItem,
  createChecklist,
  deleteChecklist,
  deleteChecklistItem,
  getChecklistFor,
  listChecklists,
  updateChecklist,
  updateChecklistItem,
} from './service.js'

const Checklist = envelope('checklist', ChecklistSchema)
const Expanded = ChecklistSchema.extend({ expand: z.strictObject({ card: CardSchema }).optional() })
const ItemAnswer = z.strictObject({ checklist_item: ChecklistItemSchema, checklist: ChecklistSchema }).meta({ id: 'ChecklistItemAnswer' })

export const checklistRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/checklists',
    operationId: 'listChecklists',
    tag: 'Checklists',
    access: 'read',
    summary: 'List checklists (of one card with `card`), with their items; by position, then creation',
    query: listQuery(CHECKLIST_LIST).extend({ card: z.string().optional().meta({ description: 'Only the checklists of this card.' }) }),
    responses: { 200: { description: 'A page of checklists', schema: pageSchema(Expanded, 'ChecklistPage') } },
    handler: async ({ deps, actor, query }) => ({ status: 200, body: await listChecklists(deps, actor, query) }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/checklists',
    operationId: 'createChecklist',
    tag: 'Checklists',
    access: 'write',
    summary: "Add a checklist (with its first items) at the end of a card's checklists; a card holds at most 100 (409 past that)",
    body: CreateChecklistBody,
    errors: [404, 409],
    responses: { 201: { description: 'The checklist', schema: Checklist } },
    handler: async ({ deps, actor, body }) => ({ status: 201, body: { checklist: await createChecklist(deps, actor, body) } }),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/checklists/{id}',
    operationId: 'getChecklist',
    tag: 'Checklists',
    access: 'read',
    summary: 'Get a checklist with its items',
    params: idParam,
    query: listQuery(CHECKLIST_LIST).pick({ expand: true }),
    responses: { 200: { description: 'The checklist', schema: envelope('checklist', Expanded) } },
    handler: async ({ deps, actor, params, query }) => ({ status: 200, body: { checklist: await getChecklistFor(deps, actor, params.id, query.expand) } }),
  }),
  defineRoute({
    method: 'patch',
    path: '/v1/checklists/{id}',
    operationId: 'updateChecklist',
    tag: 'Checklists',
    access: 'write',
    summary: "Rename a checklist, or move it among its card's checklists with `position`",
    params: idParam,
    body: UpdateChecklistBody,
    responses: { 200: { description: 'The checklist', schema: Checklist } },
    handler: async ({ deps, actor, params, body }) => ({ status: 200, body: { checklist: await updateChecklist(deps, actor, params.id, body) } }),
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/checklists/{id}',
    operationId: 'deleteChecklist',
    tag: 'Checklists',
    access: 'write',
    summary: 'Delete a checklist with its items',
    params: idParam,
    responses: { 204: { description: 'Deleted' } },
    handler: async ({ deps, actor, params }) => {
      await deleteChecklist(deps, actor, params.id)
      return { status: 204 }
    },
  }),
  defineRoute({
    method: 'post',
    path: '/v1/checklists/{id}/items',
    operationId: 'createChecklistItem',
    tag: 'Checklists',
    access: 'write',
    summary:
      'Add an item (at the end, or at `position`); answers the new item and the whole checklist, so the order is visible. A checklist holds at most 500 items (409 past that)',
    params: idParam,
    body: CreateChecklistItemBody,
    errors: [409],
    responses: { 201: { description: 'The new item and its checklist', schema: ItemAnswer } },
    handler: async ({ deps, actor, params, body }) => ({ status: 201, body: await addChecklistItem(deps, actor, params.id, body) }),
  }),
  defineRoute({
    method: 'patch',
    path: '/v1/checklists/{id}/items/{item}',
    operationId: 'updateChecklistItem',
    tag: 'Checklists',
    access: 'write',
    summary:
      'Rename, tick or untick (`completed`), or move an item; answers the item and the whole checklist. Ticking emits checklist.item_completed and unticking checklist.item_uncompleted, only when the state changes',
    params: itemParams,
    body: UpdateChecklistItemBody,
    responses: { 200: { description: 'The item and its checklist', schema: ItemAnswer } },
    handler: async ({ deps, actor, params, body }) => ({ status: 200, body: await updateChecklistItem(deps, actor, params.id, params.item, body) }),
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/checklists/{id}/items/{item}',
    operationId: 'deleteChecklistItem',
    tag: 'Checklists',
    access: 'write',
    summary: 'Delete an item',
    params: itemParams,
    responses: { 204: { description: 'Deleted' } },
    handler: async ({ deps, actor, params }) => {
      await deleteChecklistItem(deps, actor, params.id, params.item)
      return { status: 204 }
    },
  }),
]

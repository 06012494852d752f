// /v1/actions: bulk card operations and the workspace export.
import type { z } from 'zod'
import { defineRoute, type RouteContext } from '../../http/route.js'
import {
  BulkArchiveBody,
  BulkCompleteBody,
  BulkMembersBody,
  BulkMoveBody,
  BulkPriorityBody,
  BulkResult,
  BulkTagsBody,
  BulkUpdateBody,
  WorkspaceExport,
} from './schema.js'
import { bulkManage, bulkMove, bulkUpdate, exportWorkspace } from './service.js'

const bulk = <B extends z.ZodObject>(
  name: string,
  operationId: string,
  summary: string,
  body: B,
  run: (ctx: RouteContext<object, object, z.infer<B>>) => Promise<BulkResult>,
) =>
  defineRoute({
    method: 'post',
    path: `/v1/actions/${name}`,
    operationId,
    tag: 'Actions',
    access: 'write',
    summary,
    body,
    responses: { 200: { description: 'How many cards changed, and why the others did not', schema: BulkResult } },
    handler: async (ctx) => ({ status: 200, body: await run(ctx as RouteContext<object, object, z.infer<B>>) }),
  })

export const actionRoutes = [
  bulk('bulk-update-cards', 'bulkUpdateCards', 'Update fields on many cards', BulkUpdateBody, ({ deps, actor, body }) =>
    bulkUpdate(deps, actor, body.cards, body.set),
  ),
  bulk(
    'bulk-move-cards',
    'bulkMoveCards',
    'Move many cards to a list (into a `completed` list completes them, out of one re-opens them)',
    BulkMoveBody,
    ({ deps, actor, body }) => bulkMove(deps, actor, body.cards, { list: body.list, board: body.board }),
  ),
  bulk(
    'bulk-complete-cards',
    'bulkCompleteCards',
    "Complete or reopen many cards (moving them into the board's first `completed` list, or out of one)",
    BulkCompleteBody,
    ({ deps, actor, body }) => bulkUpdate(deps, actor, body.cards, { completed: body.completed }),
  ),
  bulk('bulk-archive-cards', 'bulkArchiveCards', 'Archive or unarchive many cards', BulkArchiveBody, ({ deps, actor, body }) =>
    bulkUpdate(deps, actor, body.cards, { archived: body.archived }),
  ),
  bulk('bulk-set-priority', 'bulkSetPriority', 'Set (0-4) or clear (null) the priority of many cards', BulkPriorityBody, ({ deps, actor, body }) =>
    bulkUpdate(deps, actor, body.cards, { priority: body.priority ?? 0 }),
  ),
  bulk('bulk-manage-members', 'bulkManageMembers', 'Add or remove assignees on many cards', BulkMembersBody, ({ deps, actor, body }) =>
    bulkManage(deps, actor, body.cards, 'assignees', body.add, body.remove),
  ),
  bulk('bulk-manage-tags', 'bulkManageTags', 'Add or remove tags on many cards', BulkTagsBody, ({ deps, actor, body }) =>
    bulkManage(deps, actor, body.cards, 'tags', body.add, body.remove),
  ),
  defineRoute({
    method: 'post',
    path: '/v1/actions/export-workspace',
    operationId: 'exportWorkspace',
    tag: 'Actions',
    access: 'full',
    summary: 'Export the workspace as JSON (owners and admins, Full Access token); token hashes and secrets are left out',
    responses: { 200: { description: 'Every record of the workspace', schema: WorkspaceExport } },
    handler: async ({ deps, actor }) => ({ status: 200, body: await exportWorkspace(deps, actor) }),
  }),
]

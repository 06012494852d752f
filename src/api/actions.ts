// /v1/actions: bulk card operations ({ cards: [ids], ... } → { updated, failed }) and the workspace export.
import { z } from 'zod'
import { exportRows } from '../store/users.js'
import { bulkManage, bulkMove, bulkUpdate } from '../domain/bulk.js'
import { isAdmin } from '../domain/context.js'
import { forbidden } from '../http/errors.js'
import type { Api } from '../http/route.js'
import { dateOrDateTime } from './schemas.js'

const cards = z.array(z.string().min(1)).min(1).max(500).meta({ description: 'Card ids, at most 500.' })
const idList = z.array(z.string().min(1)).max(100)
const BulkResult = z.object({
  updated: z.number().int(),
  failed: z.array(z.object({ id: z.string(), error: z.object({ code: z.string(), message: z.string() }) })),
}).meta({ id: 'BulkResult' })
const ok = { 200: { description: 'How many cards changed, and why the others did not', schema: BulkResult } }

export function actionRoutes(api: Api): void {
  const bulk = <B extends z.ZodObject>(name: string, summary: string, body: B, run: (ctx: any, body: z.infer<B>) => unknown) =>
    api.add({
      method: 'post', path: `/v1/actions/${name}`, tag: 'Actions', access: 'write', summary, body, responses: ok,
      handler: (ctx) => ({ status: 200, body: run(ctx, ctx.body as z.infer<B>) }),
    })
  bulk('bulk-update-cards', 'Update fields on many cards',
    z.object({ cards, set: z.object({
      title: z.string().trim().min(1).max(500).optional(), description: z.string().max(100_000).optional(), priority: z.number().int().min(0).max(4).optional(),
      start_date: dateOrDateTime.nullable().optional(), due_date: dateOrDateTime.nullable().optional(),
      completed: z.boolean().optional(), archived: z.boolean().optional(), trashed: z.boolean().optional(),
    }).strict() }).strict(),
    ({ deps, actor }, b) => bulkUpdate(deps, actor, b.cards, b.set))
  bulk('bulk-move-cards', 'Move many cards to a list', z.object({ cards, list: z.string().min(1), board: z.string().min(1).optional() }).strict(),
    ({ deps, actor }, b) => bulkMove(deps, actor, b.cards, { list: b.list, board: b.board }))
  bulk('bulk-complete-cards', 'Complete or reopen many cards', z.object({ cards, completed: z.boolean() }).strict(),
    ({ deps, actor }, b) => bulkUpdate(deps, actor, b.cards, { completed: b.completed }))
  bulk('bulk-archive-cards', 'Archive or unarchive many cards', z.object({ cards, archived: z.boolean() }).strict(),
    ({ deps, actor }, b) => bulkUpdate(deps, actor, b.cards, { archived: b.archived }))
  bulk('bulk-set-priority', 'Set (0-4) or clear (null) the priority of many cards', z.object({ cards, priority: z.number().int().min(0).max(4).nullable() }).strict(),
    ({ deps, actor }, b) => bulkUpdate(deps, actor, b.cards, { priority: b.priority ?? 0 }))
  bulk('bulk-manage-members', 'Add or remove assignees on many cards', z.object({ cards, add: idList.default([]), remove: idList.default([]) }).strict(),
    ({ deps, actor }, b) => bulkManage(deps, actor, b.cards, 'assignees', b.add, b.remove))
  bulk('bulk-manage-tags', 'Add or remove tags on many cards', z.object({ cards, add: idList.default([]), remove: idList.default([]) }).strict(),
    ({ deps, actor }, b) => bulkManage(deps, actor, b.cards, 'tags', b.add, b.remove))

  api.add({
    method: 'post', path: '/v1/actions/export-workspace', tag: 'Actions', access: 'full',
    summary: 'Export the workspace as JSON (owners and admins, Full Access token); token hashes and secrets are left out',
    responses: { 200: { description: 'Every record of the workspace', schema: z.object({ exported_at: z.string() }).catchall(z.array(z.unknown())).meta({ id: 'WorkspaceExport' }) } },
    handler: ({ deps, actor }) => {
      if (!isAdmin(actor)) throw forbidden('Only workspace owners and admins can export the workspace.')
      return { status: 200, body: { exported_at: new Date(deps.clock.now()).toISOString(), ...exportRows(deps.sql) } }
    },
  })
}

// Events of tasks (cards), with the payload their `data` carries: names and links beside the raw ids, so a receiver needs no second call.
import { z } from 'zod'
import { ACTOR, BOARD, described, ref, str, defineEvents, type PayloadsOf } from '../../events/fields.js'
import { PRIORITY_NAMES } from './schema.js'

const named = (what: string) => described(z.array(z.object({ id: z.string(), name: z.string().nullable() })), what)
const date = (what: string) => described(z.string().nullable(), what)

const TASK = {
  id: str('Task record id'),
  key: str('Human key, `<PREFIX>-<n>`'),
  title: str('Task title'),
  url: str('Link to the task'),
  board: BOARD,
  list: described(
    z.object({ id: z.string(), name: z.string().nullable(), category: z.string() }),
    '{ id, name, category } of the list holding the task; category is its flow state',
  ),
  assignees: named('Assigned members, each { id, name }'),
  watchers: named('Watchers, each { id, name }'),
  tags: named('Tags, each { id, name }'),
  priority: described(z.number(), `Priority, 0 (${PRIORITY_NAMES[0]}) to ${PRIORITY_NAMES.length - 1} (${PRIORITY_NAMES.at(-1)})`),
  priority_name: str(`Priority name: ${PRIORITY_NAMES.slice(0, -1).join(', ')} or ${PRIORITY_NAMES.at(-1)}`),
  start_date: date('Start date, YYYY-MM-DD or ISO 8601'),
  due_date: date('Due date, YYYY-MM-DD or ISO 8601'),
  completed: described(z.boolean(), 'Whether the task is completed'),
  completed_at: date('When it was completed, ISO 8601'),
  archived: described(z.boolean(), 'Whether the task is archived'),
  trashed: described(z.boolean(), 'Whether the task is in the trash'),
  position: described(z.number(), 'Order within its list'),
  description_excerpt: str('First part of the Markdown description'),
  created: str('When the task was created, ISO 8601'),
  updated: str('When the task last changed, ISO 8601'),
  created_by: described(z.object({ id: z.string(), name: z.string() }).nullable(), '{ id, name } of the user who created the task'),
  parent: described(z.string().nullable(), 'Record id of the parent task, or null'),
}

const task = <E extends z.ZodRawShape>(extra: E) => z.object({ ...TASK, ...extra, actor: ACTOR })

export const CARD_EVENTS = defineEvents({
  'card.created': { summary: 'A task was created.', data: task({}) },
  'card.updated': {
    summary: 'Fields of a task changed.',
    data: task({ changes: described(z.array(z.string()), 'Names of the fields that changed, e.g. ["title", "due_date"]') }),
  },
  'card.deleted': {
    summary: 'A task was deleted or moved to the trash.',
    data: task({ permanent: described(z.boolean(), 'True when deleted for good, false when moved to the trash') }),
  },
  'card.completed': { summary: 'A task was marked completed.', data: task({}) },
  'card.reopened': { summary: 'A completed task was reopened.', data: task({}) },
  'card.assigned': { summary: 'A member was assigned to a task.', data: task({ user: ref('member assigned') }) },
  'card.unassigned': { summary: 'A member was removed from a task.', data: task({ user: ref('member unassigned') }) },
  'card.moved': {
    summary: 'A task moved to another list or board.',
    data: task({
      from_list: ref('list the task left'),
      to_list: ref('list the task entered'),
      from_board: ref('board the task left (differs from board on a cross-board move)'),
    }),
  },
})

declare module '../../events/fields.js' {
  interface EventPayloads extends PayloadsOf<typeof CARD_EVENTS> {}
}

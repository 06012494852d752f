// Cards: filter fields, sort and expand.
import { field, type FilterResource } from '../../filter/index.js'
import type { ListSpec } from '../../query/list-page.js'
import { XATTR_FILTER_FIELD, XATTR_SORT } from '../xattr/query.js'

export const CARD_FILTER: FilterResource = {
  table: 'cards',
  fields: {
    id: field.id('id'),
    key: field.key('key', { prefixes: 'key_prefixes', owner: 'board_id', num: 'key_num', last: 'last_num' }),
    title: field.text('title'),
    description: field.text('description'),
    board: field.id('board_id', 'boards'),
    list: field.id('list_id', 'lists'),
    position: field.number('position'),
    priority: field.number('priority', { integer: true }),
    start_date: field.date('start_date', true),
    due_date: field.date('due_date', true),
    completed: field.boolean('completed'),
    archived: field.boolean('archived'),
    trashed: field.boolean('trashed'),
    completed_at: field.date('completed_at'),
    created: field.date('created_at'),
    updated: field.date('updated_at'),
    created_by: field.id('created_by', 'users'),
    state: { alias: 'list.category' },
    assignees: field.users('card_assignees', 'card_id'),
    members: { alias: 'assignees' },
    watchers: field.users('card_watchers', 'card_id'),
    tags: { type: 'multi', target: 'tags', link: { table: 'card_tags', from: 'card_id', to: 'tag_id' }, byName: true, boardScoped: true },
    files: { type: 'multi', target: 'files', back: 'card_id' },
    parent: field.id('parent_id', 'cards'),
    // Blocked: some card blocking it (a dependency) is neither completed nor in the trash.
    blocked: field.computed(
      'boolean',
      (row) =>
        `(case when exists (select 1 from "card_dependencies" as "d" join "cards" as "b" on "b"."id" = "d"."blocker_id" where "d"."blocked_id" = ${row}."id" and "b"."completed" = 0 and "b"."trashed" = 0) then 1 else 0 end)`,
    ),
    status: { alias: 'list.status' },
    milestone: field.id('milestone_id', 'milestones'),
    team: { alias: 'assignees.groups' },
    // `xattr.<key>`: a custom field's value (src/resources/xattr/query.ts).
    xattr: XATTR_FILTER_FIELD,
  },
}

export const CARD_EXPANDS = [
  'board',
  'list',
  'tags',
  'assignees',
  'members',
  'watchers',
  'priority',
  'created_by',
  'checklists',
  'agent_runs',
  'dependencies',
  'links',
  'git',
  'pipelines',
] as const

export const CARD_LIST: ListSpec = {
  resource: 'cards',
  table: 'cards',
  defaultSort: 'position',
  expand: CARD_EXPANDS,
  // Each served by an index in this order, with the id as the last tie-break (schema.sql, cards).
  sort: {
    position: ['cards.position', 'cards.created_at'],
    created: 'cards.created_at',
    updated: 'cards.updated_at',
    title: 'cards.title',
    priority: 'cards.priority',
    // Most cards have no such date when made: ties by creation time, so a new card's index entry goes at the end of
    // the NULLs (one page a group of creates shares) instead of at a random place among them (by its random id).
    due_date: ['cards.due_date', 'cards.created_at'],
    start_date: ['cards.start_date', 'cards.created_at'],
    completed_at: ['cards.completed_at', 'cards.created_at'],
    key: 'cards.key_num',
  },
  // `xattr.<key>`: by a custom field's value, cards without one last.
  keyed: XATTR_SORT,
}

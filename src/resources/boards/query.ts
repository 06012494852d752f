// Boards and board members: filter fields, sort and expand.
import { field, type FilterResource } from '../../filter/index.js'
import type { ListSpec } from '../../query/list-page.js'
import { USER_SORT } from '../users/query.js'

export const BOARD_FILTER: FilterResource = {
  table: 'boards',
  fields: {
    id: field.id('id'),
    name: field.text('name'),
    description: field.text('description'),
    key_prefix: field.text('key_prefix'),
    created: field.date('created_at'),
    updated: field.date('updated_at'),
    created_by: field.id('created_by', 'users'),
    members: field.users('board_members', 'board_id'),
    folder: field.id('folder_id', 'folders'),
  },
}

export const BOARD_LIST: ListSpec = {
  resource: 'boards',
  table: 'boards',
  defaultSort: 'created',
  expand: ['lists', 'members'],
  sort: { created: 'boards.created_at', updated: 'boards.updated_at', name: 'boards.name' },
}

/** A board's members are users: the users' filter fields and sort. */
export const MEMBER_LIST: ListSpec = { resource: 'users', table: 'users', sort: USER_SORT, defaultSort: 'name', expand: [] }

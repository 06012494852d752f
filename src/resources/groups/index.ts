// The groups family: /v1/groups (groups and teams of users).
import type { ResourceModule } from '../module.js'
import { GROUP_EVENTS } from './events.js'
import { GROUP_FILTER } from './query.js'
import { groupRoutes } from './routes.js'

export const groups: ResourceModule = {
  name: 'groups',
  routes: groupRoutes,
  filters: { groups: GROUP_FILTER },
  events: GROUP_EVENTS,
  exports: [{ table: 'user_groups' }, { table: 'user_group_members', key: ['group_id', 'user_id'] }],
}

// The checklists family: /v1/checklists.
import type { ResourceModule } from '../module.js'
import { CHECKLIST_EVENTS } from './events.js'
import { CHECKLIST_FILTER } from './query.js'
import { checklistRoutes } from './routes.js'

export const checklists: ResourceModule = {
  name: 'checklists',
  routes: checklistRoutes,
  filters: { checklists: CHECKLIST_FILTER },
  events: CHECKLIST_EVENTS,
  exports: [{ table: 'checklists' }, { table: 'checklist_items' }],
}

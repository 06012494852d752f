// The folders family: /v1/folders.
import type { ResourceModule } from '../module.js'
import { FOLDER_EVENTS } from './events.js'
import { FOLDER_FILTER } from './query.js'
import { folderRoutes } from './routes.js'

export const folders: ResourceModule = {
  name: 'folders',
  routes: folderRoutes,
  filters: { folders: FOLDER_FILTER },
  events: FOLDER_EVENTS,
  // Before the boards, which name their folder (an import puts a folder after its parent).
  exports: [{ table: 'folders' }],
}

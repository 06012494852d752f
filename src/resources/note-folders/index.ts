// The note folders family: /v1/note-folders.
import type { ResourceModule } from '../module.js'
import { NOTE_FOLDER_FILTER } from './query.js'
import { noteFolderRoutes } from './routes.js'

export const noteFolders: ResourceModule = {
  name: 'note-folders',
  routes: noteFolderRoutes,
  filters: { note_folders: NOTE_FOLDER_FILTER },
  exports: [{ table: 'note_folders' }],
}

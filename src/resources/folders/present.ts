// Folders in API shape, and the `data` of their events.
import type { FoldersTable } from '../../db/types.js'
import type { EventData } from '../../events/fields.js'
import type { FolderView } from './schema.js'

export const folderView = (f: FoldersTable): FolderView => ({
  id: f.id,
  name: f.name,
  parent: f.parent_id,
  position: f.position,
  created: f.created_at,
  updated: f.updated_at,
})

export const folderEventData = (f: FoldersTable): EventData<'folder.created'> => ({ id: f.id, name: f.name, parent: f.parent_id })

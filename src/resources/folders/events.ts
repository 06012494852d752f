// Events of folders (workspace-wide: no board), with the payload their `data` carries.
import { z } from 'zod'
import { ACTOR, described, str, defineEvents, type PayloadsOf } from '../../events/fields.js'

const folderData = z.object({
  id: str('Folder id'),
  name: str('Folder name'),
  parent: described(z.string().nullable(), 'The folder it is in; null at the top'),
  actor: ACTOR,
})

export const FOLDER_EVENTS = defineEvents({
  'folder.created': { summary: 'A folder of boards was created.', data: folderData },
  'folder.updated': { summary: 'A folder was renamed or moved.', data: folderData },
  'folder.deleted': { summary: 'A folder was deleted; its boards and folders went to its parent.', data: folderData },
})

declare module '../../events/fields.js' {
  interface EventPayloads extends PayloadsOf<typeof FOLDER_EVENTS> {}
}

// The note publications family: /v1/note-publications, and the public URL of each published note.
import type { ResourceModule } from '../module.js'
import { servePublicNote } from './public.js'
import { NOTE_PUBLICATION_FILTER } from './query.js'
import { notePublicationRoutes, publicNoteDoc } from './routes.js'

export const notePublications: ResourceModule = {
  name: 'note-publications',
  routes: notePublicationRoutes,
  filters: { note_publications: NOTE_PUBLICATION_FILTER },
  receivers: [{ path: '/v1/note-publications/public/:slug', handler: servePublicNote, doc: publicNoteDoc }],
  exports: [{ table: 'note_publications' }],
}

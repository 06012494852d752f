// The notes family: /v1/notes.
import type { ResourceModule } from '../module.js'
import { NOTE_FILTER } from './query.js'
import { noteRoutes } from './routes.js'
import { NOTE_TOOLS } from './mcp.js'

export const notes: ResourceModule = { name: 'notes', routes: noteRoutes, filters: { notes: NOTE_FILTER }, mcpTools: NOTE_TOOLS, exports: [{ table: 'notes' }] }

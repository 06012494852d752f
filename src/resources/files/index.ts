// The files family: /v1/files, attachments of cards and notes, and the one chunked store every kept file lives in
// (incoming endpoints keep their requests' files here too, through published.ts and chunks.ts).
import { sql } from 'kysely'
import type { ResourceModule } from '../module.js'
import { FILE_TOOLS } from './mcp.js'
import { FILE_FILTER } from './query.js'
import { fileRoutes } from './routes.js'

export const files: ResourceModule = {
  name: 'files',
  routes: fileRoutes,
  filters: { files: FILE_FILTER },
  mcpTools: FILE_TOOLS,
  // Complete attachments of cards and notes; the files of incoming requests stay out with their requests.
  exports: [
    { table: 'files', where: sql<boolean>`complete = 1 AND request_id IS NULL` },
    {
      table: 'file_chunks',
      key: ['file_id', 'seq'],
      bytes: 'data',
      where: sql<boolean>`file_id IN (SELECT id FROM files WHERE complete = 1 AND request_id IS NULL)`,
    },
  ],
}

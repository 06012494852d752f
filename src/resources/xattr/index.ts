// The custom fields family: /v1/xattr (field definitions per board); values on cards as `xattr`.
import type { ResourceModule } from '../module.js'
import { XATTR_EVENTS } from './events.js'
import { XATTR_TOOLS } from './mcp.js'
import { XATTR_FIELD_FILTER } from './query.js'
import { xattrRoutes } from './routes.js'

export const xattr: ResourceModule = {
  name: 'xattr',
  routes: xattrRoutes,
  filters: { xattr_fields: XATTR_FIELD_FILTER },
  events: XATTR_EVENTS,
  mcpTools: XATTR_TOOLS,
  exports: [{ table: 'xattr_fields' }, { table: 'xattr_options' }, { table: 'card_xattr', key: ['card_id', 'field_id', 'seq'] }],
}

// What a resource family brings: its routes, filter field maps, events, MCP tools and its part of a workspace export.
// The app, the OpenAPI document, the filter registry, the event catalog, MCP and export/import iterate over these.
import type { DB } from '../db/types.js'
import type { ExportedTableSpec } from './actions/store.js'
import type { EventDefs } from '../events/fields.js'
import type { Tool } from '../mcp/tools.js'
import type { FilterResource } from '../filter/index.js'
import type { RequestHandler } from 'express'
import type { Deps } from '../deps.js'
import type { AnyRoute } from '../http/route.js'

export interface ResourceModule {
  name: string
  /** In mounting order: fixed paths before `{id}` paths that would otherwise take them. */
  routes: readonly AnyRoute[]
  /** Filter field maps by resource name (usually one, named like the family). */
  filters?: Readonly<Record<string, FilterResource>>
  /** The events it emits with their payload schemas; `<family>.*` selectors take the family from the names. */
  events?: EventDefs
  /** Its MCP tools, in the order tools/list shows them. */
  mcpTools?: readonly Tool[]
  /**
   * The tables a workspace export carries, parents before children (an import inserts them in this order, after the
   * tables of the families before it); `key` is the primary key when it is not `id`, so rows come in key order.
   */
  exports?: readonly ExportedTableSpec[]
  /** Tables it owns but leaves out of an export, each with the reason. */
  notExported?: Readonly<Partial<Record<keyof DB, string>>>
  /**
   * Handlers outside the bearer-token API (the public receiving side of incoming webhooks), mounted before it; `doc`
   * is the operation as the OpenAPI document shows it (a route spec that is documented, never mounted).
   */
  receivers?: readonly { path: string; handler: (deps: Deps) => RequestHandler; doc: AnyRoute }[]
}

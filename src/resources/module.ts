// What a resource family exports: its routes, its filter field maps and the events it emits. The app, the OpenAPI
// document, the filter registry and the event catalog (and later MCP and n8n) are all built by iterating over these.
import type { EventDefs } from '../events/fields.js'
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
  events?: EventDefs
  /**
   * Handlers outside the bearer-token API (the public receiving side of incoming webhooks), mounted before it; `doc`
   * is the operation as the OpenAPI document shows it (a route spec that is documented, never mounted).
   */
  receivers?: readonly { path: string; handler: (deps: Deps) => RequestHandler; doc: AnyRoute }[]
}

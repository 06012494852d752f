// /v1/saved-filters: named card filters, private or shared; GET /v1/cards?saved_filter=<id> applies one.
import { z } from 'zod'
import { defineRoute } from '../../http/route.js'
import { envelope, idParam } from '../../http/schemas.js'
import { listQuery, pageSchema } from '../../query/list-page.js'
import { SAVED_FILTER_LIST } from './query.js'
import { CreateSavedFilterBody, SavedFilterSchema, UpdateSavedFilterBody } from './schema.js'
import { createSavedFilter, deleteSavedFilter, getSavedFilterFor, listSavedFilters, updateSavedFilter } from './service.js'

const SavedFilter = envelope('saved_filter', SavedFilterSchema)

const ABOUT =
  "A saved filter is a named card filter: its `filter`, `sort` and `expand` as `GET /v1/cards` takes them, checked when saved (400 `invalid_filter` with the position of the problem, or 400 naming `sort` or `expand`). `GET /v1/cards?saved_filter=<id>` applies it: its filter AND the request's `filter` and other parameters; the request's `sort` (and `expand`) win, else the saved ones; a saved filter of a board lists that board's cards only. Private to its creator unless `shared`: then every member of its board sees it, or the whole workspace when it has no board (only owners and admins share with the whole workspace). Its creator changes and deletes it; owners and admins also a shared one (403 for others who see it); one you do not see is a 404. A board deleted for good takes its saved filters; one who leaves a board no longer sees that board's saved filters, their own included, until they are a member again (the shared ones stay for the other members). A user deleted from the workspace takes the saved filters they made. Events `saved_filter.created|updated|deleted` go only to those who see the filter: a private one's to its creator's own subscriptions."

export const savedFilterRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/saved-filters',
    operationId: 'listSavedFilters',
    tag: 'Saved filters',
    access: 'read',
    summary: 'List the saved filters you see: yours and the shared ones',
    description: ABOUT,
    query: listQuery(SAVED_FILTER_LIST).extend({ board: z.string().optional().meta({ description: 'Only the saved filters of this board.' }) }),
    responses: {
      200: {
        description: 'A page of saved filters',
        schema: pageSchema(SavedFilterSchema, 'SavedFilterPage'),
      },
    },
    handler: async ({ deps, actor, query }) => ({ status: 200, body: await listSavedFilters(deps, actor, query) }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/saved-filters',
    operationId: 'createSavedFilter',
    tag: 'Saved filters',
    access: 'write',
    summary: 'Save a card filter (private unless shared)',
    description: ABOUT,
    body: CreateSavedFilterBody,
    errors: [400, 404],
    responses: { 201: { description: 'The saved filter', schema: SavedFilter } },
    handler: async ({ deps, actor, body }) => ({ status: 201, body: { saved_filter: await createSavedFilter(deps, actor, body) } }),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/saved-filters/{id}',
    operationId: 'getSavedFilter',
    tag: 'Saved filters',
    access: 'read',
    summary: 'Get a saved filter',
    params: idParam,
    responses: { 200: { description: 'The saved filter', schema: SavedFilter } },
    handler: async ({ deps, actor, params }) => ({ status: 200, body: { saved_filter: await getSavedFilterFor(deps, actor, params.id) } }),
  }),
  defineRoute({
    method: 'patch',
    path: '/v1/saved-filters/{id}',
    operationId: 'updateSavedFilter',
    tag: 'Saved filters',
    access: 'write',
    summary: 'Change a saved filter (its creator; owners and admins also a shared one)',
    description:
      'Only what is given changes; `sort` and `expand` null clear them. A new filter, sort or expand is checked as on create (a sort by a custom field again when the board changes). The event goes to those who see the filter after the change.',
    params: idParam,
    body: UpdateSavedFilterBody,
    errors: [400, 403, 404],
    responses: { 200: { description: 'The saved filter', schema: SavedFilter } },
    handler: async ({ deps, actor, params, body }) => ({ status: 200, body: { saved_filter: await updateSavedFilter(deps, actor, params.id, body) } }),
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/saved-filters/{id}',
    operationId: 'deleteSavedFilter',
    tag: 'Saved filters',
    access: 'write',
    summary: 'Delete a saved filter (its creator; owners and admins also a shared one)',
    params: idParam,
    errors: [403],
    responses: { 204: { description: 'Deleted' } },
    handler: async ({ deps, actor, params }) => {
      await deleteSavedFilter(deps, actor, params.id)
      return { status: 204 }
    },
  }),
]

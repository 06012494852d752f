// Events of saved filters, with the payload their `data` carries. Each goes only to those who see the filter: a private
// one's to its creator's subscriptions alone (the event's audience), a shared one's to those of its board (or, with no
// board, to the workspace-wide subscriptions of owners and admins).
import { z } from 'zod'
import { ACTOR, described, ref, str, defineEvents, type PayloadsOf } from '../../events/fields.js'

const data = z.object({
  id: str('Saved filter id'),
  name: str('Saved filter name'),
  resource: str('What it filters: cards'),
  filter: str('The filter expression ("" for every card)'),
  sort: described(z.string().nullable(), 'The sort, or null'),
  expand: described(z.string().nullable(), 'The relations expanded, or null'),
  board: described(ref('board').nullable(), '{ id, name } of its board, or null'),
  shared: described(z.boolean(), 'Whether the members of its board (or the workspace, with no board) see it'),
  created_by: ref('user who made it'),
  actor: ACTOR,
})

export const SAVED_FILTER_EVENTS = defineEvents({
  'saved_filter.created': { summary: 'A saved filter was made (announced to those who see it).', data },
  'saved_filter.updated': { summary: 'A saved filter was changed (announced to those who see it after the change).', data },
  'saved_filter.deleted': { summary: 'A saved filter was deleted (announced to those who saw it).', data },
})

declare module '../../events/fields.js' {
  interface EventPayloads extends PayloadsOf<typeof SAVED_FILTER_EVENTS> {}
}

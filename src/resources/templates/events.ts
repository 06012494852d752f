// Events of board templates (workspace-wide: no board), with the payload their `data` carries.
import { z } from 'zod'
import { ACTOR, str, defineEvents, type PayloadsOf } from '../../events/fields.js'

const data = z.object({ id: str('Template id'), name: str('Template name'), actor: ACTOR })

export const TEMPLATE_EVENTS = defineEvents({
  'template.created': { summary: 'A board template was created.', data },
  'template.updated': { summary: 'A board template was changed.', data },
  'template.deleted': { summary: 'A board template was deleted.', data },
})

declare module '../../events/fields.js' {
  interface EventPayloads extends PayloadsOf<typeof TEMPLATE_EVENTS> {}
}

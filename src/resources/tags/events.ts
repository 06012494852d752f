// Events of tags, with the payload their `data` carries.
import { z } from 'zod'
import { ACTOR, BOARD, described, str, defineEvents, type PayloadsOf } from '../../events/fields.js'

const tagData = z.object({ id: str('Tag id'), name: str('Tag name'), color: described(z.string().nullable(), 'Tag colour'), board: BOARD, actor: ACTOR })

export const TAG_EVENTS = defineEvents({
  'tag.created': { summary: 'A tag was created on a board.', data: tagData },
  'tag.deleted': { summary: 'A tag was deleted.', data: tagData },
})

declare module '../../events/fields.js' {
  interface EventPayloads extends PayloadsOf<typeof TAG_EVENTS> {}
}

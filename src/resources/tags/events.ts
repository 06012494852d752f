// Events of tags, with the payload their `data` carries.
import { z } from 'zod'
import { ACTOR, BOARD, described, str, type EventDefs } from '../../events/fields.js'

const tagData = z.object({ id: str('Tag id'), name: str('Tag name'), color: described(z.string().nullable(), 'Tag colour'), board: BOARD, actor: ACTOR })

export const TAG_EVENTS: EventDefs = {
  'tag.created': { summary: 'A tag was created on a board.', data: tagData },
  'tag.deleted': { summary: 'A tag was deleted.', data: tagData },
}

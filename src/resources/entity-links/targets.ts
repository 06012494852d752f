// What a link's target must be, per type, beyond the body's shape: the one place that looks a target up.
import type { Actor } from '../../access/roles.js'
import type { Q } from '../../db/database.js'
import { invalidField } from '../../errors.js'
import { inSight } from '../note-folders/service.js'
import { getNote } from '../notes/published.js'

/** A note the actor sees (a board's notes: its members; a board-less note: its author, owners and admins); 404 otherwise. */
export const noteTarget = async (q: Q, actor: Actor, id: string): Promise<void> => {
  await inSight(q, actor, await getNote(q, id), 'note')
}

/**
 * A milestone the actor sees. Milestones are not part of this build, so a milestone target is refused (422); where
 * they exist, this looks the milestone up on a board the actor sees (404 otherwise), and nothing else changes.
 */
export const milestoneTarget = async (_q: Q, _actor: Actor, _id: string): Promise<void> => {
  throw invalidField('target.type', 'Milestones are not available.')
}

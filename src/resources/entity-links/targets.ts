// What a link's target must be, per type, beyond the body's shape: the one place that looks a target up.
import type { Actor } from '../../access/roles.js'
import type { Q } from '../../db/database.js'
import { visibleOnBoard } from '../../access/visibility.js'
import { getMilestone } from '../milestones/published.js'
import { inSight } from '../note-folders/service.js'
import { getNote } from '../notes/published.js'

/** A note the actor sees (a board's notes: its members; a board-less note: its author, owners and admins); 404 otherwise. */
export const noteTarget = async (q: Q, actor: Actor, id: string): Promise<void> => {
  await inSight(q, actor, await getNote(q, id), 'note')
}

/** A milestone on a board the actor sees; 404 otherwise. */
export const milestoneTarget = async (q: Q, actor: Actor, id: string): Promise<void> => {
  await visibleOnBoard(q, actor, await getMilestone(q, id), 'milestone')
}

// Inbox queries. An item about a task shows only while its task's board is in the user's sight; an item about no task
// (a subscription taskd paused) shows while its subscription exists (it goes with it).
import { visibleBoardIds, type Viewer } from '../../access/visibility.js'
import type { Q } from '../../db/database.js'
import type { InboxItemsTable } from '../../db/types.js'

export const insertInboxItems = (q: Q, rows: InboxItemsTable[]) => (rows.length ? q.insertInto('inbox_items').values(rows).execute() : Promise.resolve())

/** Base query of the inbox: the viewer's items on boards they still see, and those about no task. */
export const visibleInboxQuery = (q: Q, viewer: Viewer) =>
  q
    .selectFrom('inbox_items')
    .leftJoin('cards', 'cards.id', 'inbox_items.card_id')
    .where('inbox_items.user_id', '=', viewer.id)
    .where((eb) => eb.or([eb('inbox_items.card_id', 'is', null), eb('cards.board_id', 'in', visibleBoardIds(q, viewer))]))

export const getVisibleInboxItem = (q: Q, viewer: Viewer, id: string) =>
  visibleInboxQuery(q, viewer).selectAll('inbox_items').where('inbox_items.id', '=', id).executeTakeFirst()

export const setReadAt = (q: Q, id: string, at: string | null) => q.updateTable('inbox_items').set({ read_at: at }).where('id', '=', id).execute()
export const deleteInboxItem = (q: Q, id: string) => q.deleteFrom('inbox_items').where('id', '=', id).execute()

/** Marks every unread item the viewer sees read; returns how many. */
export async function markAllRead(q: Q, viewer: Viewer, at: string): Promise<number> {
  const result = await q
    .updateTable('inbox_items')
    .set({ read_at: at })
    .where('user_id', '=', viewer.id)
    .where('read_at', 'is', null)
    .where((eb) =>
      eb.or([
        eb('card_id', 'is', null),
        eb('card_id', 'in', q.selectFrom('cards').select('cards.id').where('cards.board_id', 'in', visibleBoardIds(q, viewer))),
      ]),
    )
    .executeTakeFirst()
  return Number(result.numUpdatedRows)
}

export const unreadCount = async (q: Q, viewer: Viewer): Promise<number> =>
  Number(
    (
      await visibleInboxQuery(q, viewer)
        .where('inbox_items.read_at', 'is', null)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  )

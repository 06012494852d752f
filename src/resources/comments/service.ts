// Comments: list, write, edit (the author), delete (the author, owners and admins). Writing notifies the people a
// comment mentions and the task's watchers through their inboxes, in the comment's transaction.
import { type Actor, actorWithKind, creatorId, isAdmin } from '../../access/roles.js'
import { usersSeeingBoard, visibleOnBoard } from '../../access/visibility.js'
import { isoAt } from '../../clock.js'
import type { Q, Tx } from '../../db/database.js'
import type { CardsTable, CommentsTable } from '../../db/types.js'
import type { Deps } from '../../deps.js'
import { checkedInput, forbidden, notFound } from '../../errors.js'
import { emitEvent, type NewEvent } from '../../events/emit.js'
import { newId } from '../../ids.js'
import { listPage, parseExpand, type ListParams } from '../../query/list-page.js'
import { expandCard, taskEventRefs, taskEventRefsOf } from '../cards/present.js'
import { getCard, watchersOf } from '../cards/published.js'
import { notify } from '../inbox/service.js'
import { commentViews } from './present.js'
import { COMMENT_LIST } from './query.js'
import { CommentAuthor, type CommentView, CreateCommentBody, type CreateCommentInput, UpdateCommentBody } from './schema.js'
import {
  commentsOfCards,
  deleteCommentRow,
  getComment,
  insertComment,
  lockComment,
  mentionsOf,
  setMentions,
  updateCommentRow,
  visibleCommentsQuery,
} from './store.js'
import { fromJsonColumn } from '../../db/json.js'

// cards/service.ts's visibleCard, which this file cannot import: the cards service calls announceCommentsOfCardGone.
const visibleCard = async (q: Q, actor: Actor, id: string): Promise<CardsTable> => visibleOnBoard(q, actor, await getCard(q, id), 'card')

/**
 * A comment with its card, if the caller sees the card's board; 404 otherwise. `lock`: for a change, so that an edit
 * and a delete (or two deletes) take turns on PostgreSQL.
 */
async function visibleComment(q: Q, actor: Actor, id: string, lock = false): Promise<{ comment: CommentsTable; card: CardsTable }> {
  const comment = await (lock ? lockComment : getComment)(q, id)
  if (!comment) throw notFound('comment')
  return { comment, card: await visibleOnBoard(q, actor, await getCard(q, comment.card_id), 'comment') }
}

const MAX_MENTION_SIGNS = 1000
const WORD = /[\p{L}\p{N}_]/u

/**
 * The users an `@name` in the body names, among those who see the card's board: `@` then a user's name or the part of
 * their email before the @, in any case, not followed by a letter or digit (`@Ana Lima,` names Ana Lima; the longest
 * name wins, and names everyone who has it). An `@` inside a word (an email address) names nobody.
 */
export function mentionedIn(body: string, people: readonly { id: string; name: string; email: string }[]): string[] {
  const handles = people.flatMap((p) => [p.name, p.email.split('@')[0]].filter((h) => h.length > 0).map((h) => ({ id: p.id, h: h.toLowerCase() })))
  handles.sort((a, b) => b.h.length - a.h.length)
  const lower = body.toLowerCase()
  const found = new Set<string>()
  let signs = 0
  for (let i = lower.indexOf('@'); i !== -1 && signs < MAX_MENTION_SIGNS; i = lower.indexOf('@', i + 1), signs++) {
    const before = lower.slice(0, i).match(/.$/u)?.[0] // the whole character before, also outside the BMP
    if (before && WORD.test(before)) continue
    const hits = handles.filter(({ h }) => lower.startsWith(h, i + 1) && !WORD.test(lower.slice(i + 1 + h.length).match(/^./u)?.[0] ?? ''))
    for (const hit of hits.filter((x) => x.h.length === hits[0].h.length)) found.add(hit.id)
  }
  return [...found]
}

/** The users a body mentions, among those who see the card's board (no query when it has no `@`). */
const mentionsIn = async (q: Q, body: string, card: CardsTable): Promise<string[]> =>
  body.includes('@') ? mentionedIn(body, await usersSeeingBoard(q, card.board_id)) : []

const authorOf = (comment: CommentsTable) => fromJsonColumn(CommentAuthor, comment.author)

export function listComments(deps: Deps, actor: Actor, params: ListParams & { card?: string }) {
  const { q } = deps.db
  return listPage(
    deps.db,
    visibleCommentsQuery(q, actor.user, params.card),
    COMMENT_LIST,
    params,
    async (rows: CommentsTable[], expand) => expandCard(q, await commentViews(q, rows), expand),
    { anchored: Boolean(params.card) },
  )
}

export async function getCommentFor(deps: Deps, actor: Actor, id: string, expand?: string) {
  const { q } = deps.db
  const { comment } = await visibleComment(q, actor, id)
  return (await expandCard(q, await commentViews(q, [comment]), parseExpand(expand, COMMENT_LIST.expand)))[0]
}

export const createComment = (deps: Deps, actor: Actor, input: CreateCommentInput): Promise<CommentView> =>
  deps.db.tx((tx) => createCommentIn(deps, tx, actor, input))

export async function createCommentIn(deps: Deps, tx: Tx, actor: Actor, given: CreateCommentInput): Promise<CommentView> {
  const { q } = tx
  // Checked here too, not only by the route: an agent's reply or an automation step writes through this function.
  const input = checkedInput(CreateCommentBody, given)
  const card = await visibleCard(q, actor, input.card)
  const at = isoAt(deps.clock.now())
  const author = actorWithKind(actor)
  const row: CommentsTable = {
    id: newId(),
    card_id: card.id,
    body: input.body,
    author_id: creatorId(actor),
    author: JSON.stringify(author),
    created_at: at,
    updated_at: at,
  }
  await insertComment(q, row)
  const mentioned = await mentionsIn(q, input.body, card)
  await setMentions(q, row.id, mentioned)
  const view = (await commentViews(q, [row]))[0]
  await emitEvent(deps, tx, {
    name: 'comment.added',
    boardId: card.board_id,
    data: { id: row.id, body: row.body, author, mentions: view.mentions, created: at, ...(await taskEventRefs(q, deps.config, card)) },
    actor,
  })
  const told = await notify(deps, tx, actor, { kind: 'mentioned', users: mentioned, card, comment: row.id })
  const watchers = await watchersOf(q, card.id)
  await notify(deps, tx, actor, { kind: 'commented', users: watchers.filter((u) => !told.has(u)), card, comment: row.id })
  return view
}

/** Whether the actor may edit or delete the comment: its author, owners and admins. */
const mayChange = (actor: Actor, comment: CommentsTable) => isAdmin(actor) || (!actor.run && comment.author_id === actor.user.id)

/** The author edits a comment; owners and admins any. Members it newly mentions are told. */
export const updateComment = (deps: Deps, actor: Actor, id: string, given: { body: string }): Promise<CommentView> =>
  deps.db.tx(async (tx) => {
    const { q } = tx
    const input = checkedInput(UpdateCommentBody, given)
    const { comment, card } = await visibleComment(q, actor, id, true)
    if (!mayChange(actor, comment)) throw forbidden('Only the author, owners and admins may edit a comment.')
    const before = new Set((await mentionsOf(q, [id])).map((m) => m.id))
    const mentioned = await mentionsIn(q, input.body, card)
    const at = isoAt(deps.clock.now())
    await updateCommentRow(q, id, { body: input.body, updated_at: at })
    await setMentions(q, id, mentioned)
    await notify(deps, tx, actor, { kind: 'mentioned', users: mentioned.filter((u) => !before.has(u)), card, comment: id })
    return (await commentViews(q, [{ ...comment, body: input.body, updated_at: at }]))[0]
  })

type TaskRefs = Awaited<ReturnType<typeof taskEventRefs>>

const deletedEvent = (actor: Actor, comment: CommentsTable, card: CardsTable, refs: TaskRefs): NewEvent => ({
  name: 'comment.deleted',
  boardId: card.board_id,
  data: { id: comment.id, author: authorOf(comment), ...refs },
  actor,
})

/** The author deletes their comment; owners and admins any. */
export const deleteComment = (deps: Deps, actor: Actor, id: string): Promise<void> =>
  deps.db.tx(async (tx) => {
    const { comment, card } = await visibleComment(tx.q, actor, id, true)
    if (!mayChange(actor, comment)) throw forbidden('Only the author, owners and admins may delete a comment.')
    await deleteCommentRow(tx.q, id)
    await emitEvent(deps, tx, deletedEvent(actor, comment, card, await taskEventRefs(tx.q, deps.config, card)))
  })

/**
 * For cards about to be deleted for good: the comment.deleted event of each of their comments (the rows go with the
 * cards), by card id, oldest comment first.
 */
export async function commentsGoneEvents(deps: Deps, q: Q, actor: Actor, cards: readonly CardsTable[]): Promise<Map<string, NewEvent[]>> {
  const byCard = new Map<string, NewEvent[]>()
  const comments = await commentsOfCards(
    q,
    cards.map((c) => c.id),
  )
  const talked = cards.filter((card) => comments.some((c) => c.card_id === card.id))
  const refs = await taskEventRefsOf(q, deps.config, talked)
  talked.forEach((card, i) =>
    byCard.set(
      card.id,
      comments.filter((c) => c.card_id === card.id).map((comment) => deletedEvent(actor, comment, card, refs[i])),
    ),
  )
  return byCard
}

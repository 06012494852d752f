// Notes. A note on a board is seen and changed by whoever sees the board (a write token to change it); a board-less
// note by its author, owners and admins. A card puts the note on the card's board; a folder must be on the note's
// board (or board-less with it). Notes emit no events.
import { type Actor, creatorId } from '../../access/roles.js'
import { visibleBoard } from '../../access/visibility.js'
import { isoAt } from '../../clock.js'
import type { Q, Tx } from '../../db/database.js'
import type { NotesTable } from '../../db/types.js'
import type { Deps } from '../../deps.js'
import { invalidField } from '../../errors.js'
import { newId } from '../../ids.js'
import { listPage, parseExpand, type ListParams } from '../../query/list-page.js'
import { forEachId } from '../actions/service.js'
import { cardToChange } from '../cards/service.js'
import { folderOn, inSight } from '../note-folders/service.js'
import { expandNotes, noteViews } from './present.js'
import { NOTE_LIST } from './query.js'
import type { CreateNoteInput, NoteView, UpdateNoteInput } from './schema.js'
import { deleteNoteRow, getNote, insertNote, lockNote, updateNoteRow, visibleNotesQuery } from './store.js'

type Placement = Pick<NotesTable, 'board_id' | 'card_id' | 'folder_id'>
type PlacementInput = { board?: string | null; card?: string | null; folder?: string | null }

/** A note the actor sees (and so may change); 404 (naming `what`) otherwise. */
export const noteInSight = async (q: Q, actor: Actor, id: string, what = 'note'): Promise<NotesTable> => inSight(q, actor, await getNote(q, id), what)
/** noteInSight for a change, locked until the transaction ends; 404 otherwise. */
export const noteToChange = async (q: Q, actor: Actor, id: string): Promise<NotesTable> => inSight(q, actor, await lockNote(q, id), 'note')

/**
 * Where a note goes: `input` over where it `was`. A card sets the board (another `board` beside it is a 422); a note
 * that changes board leaves its card and folder unless they are given. Board, card and folder must be in the actor's
 * sight (404), the folder on the note's board (422).
 */
async function placement(q: Q, actor: Actor, was: Placement, input: PlacementInput): Promise<Placement> {
  if (input.board) await visibleBoard(q, actor, input.board)
  const card = input.card ? await cardToChange(q, actor, input.card) : undefined
  if (card && input.board !== undefined && input.board !== card.board_id)
    throw invalidField('board', "The card is on another board: leave board out, or send the card's board.")
  const boardId = card ? card.board_id : input.board !== undefined ? input.board : was.board_id
  const moved = boardId !== was.board_id
  if (input.folder) await folderOn(q, actor, input.folder, boardId, 'folder')
  return {
    board_id: boardId,
    card_id: input.card !== undefined ? input.card : moved ? null : was.card_id,
    folder_id: input.folder !== undefined ? input.folder : moved ? null : was.folder_id,
  }
}

const viewOf = async (q: Q, id: string): Promise<NoteView> => (await noteViews(q, [(await getNote(q, id))!]))[0]

export function listNotes(deps: Deps, actor: Actor, params: ListParams) {
  const { q } = deps.db
  return listPage(deps.db, visibleNotesQuery(q, actor.user), NOTE_LIST, params, async (rows: NotesTable[], expand) =>
    expandNotes(q, actor.user, await noteViews(q, rows), expand),
  )
}

export async function getNoteFor(deps: Deps, actor: Actor, id: string, expand?: string) {
  const { q } = deps.db
  const row = await noteInSight(q, actor, id)
  return (await expandNotes(q, actor.user, await noteViews(q, [row]), parseExpand(expand, NOTE_LIST.expand)))[0]
}

export const createNote = (deps: Deps, actor: Actor, input: CreateNoteInput): Promise<NoteView> =>
  deps.db.tx(async ({ q }) => {
    const at = isoAt(deps.clock.now())
    const row: NotesTable = {
      id: newId(),
      title: input.title,
      body: input.body,
      ...(await placement(q, actor, { board_id: null, card_id: null, folder_id: null }, input)),
      created_by: creatorId(actor),
      created_at: at,
      updated_at: at,
    }
    await insertNote(q, row)
    return viewOf(q, row.id)
  })

async function changeNote(deps: Deps, tx: Tx, actor: Actor, id: string, input: UpdateNoteInput): Promise<void> {
  const { q } = tx
  const note = await noteToChange(q, actor, id)
  await updateNoteRow(q, id, {
    ...(input.title !== undefined && { title: input.title }),
    ...(input.body !== undefined && { body: input.body }),
    ...(await placement(q, actor, note, input)),
    updated_at: isoAt(deps.clock.now()),
  })
}

export const updateNote = (deps: Deps, actor: Actor, id: string, input: UpdateNoteInput): Promise<NoteView> =>
  deps.db.tx(async (tx) => {
    await changeNote(deps, tx, actor, id, input)
    return viewOf(tx.q, id)
  })

/** Files many notes in a folder and/or on a board; a note the caller does not see fails with not_found. */
export const bulkUpdateNotes = (deps: Deps, actor: Actor, ids: string[], set: Pick<UpdateNoteInput, 'folder' | 'board'>) =>
  forEachId(deps, ids, (tx, id) => changeNote(deps, tx, actor, id, set))

/** Deletes a note with its publication (its public URL answers 404 at once). */
export const deleteNote = (deps: Deps, actor: Actor, id: string): Promise<void> =>
  deps.db.tx(async ({ q }) => {
    await noteToChange(q, actor, id)
    await deleteNoteRow(q, id)
  })

// /v1/notes: Markdown notes on boards and cards, or board-less; /v1/notes/bulk-update files many at once.
import { z } from 'zod'
import { defineRoute } from '../../http/route.js'
import { envelope, idParam, orNull } from '../../http/schemas.js'
import { listQuery, pageSchema } from '../../query/list-page.js'
import { BulkResult } from '../actions/schema.js'
import { BoardSchema } from '../boards/schema.js'
import { CardSchema } from '../cards/schema.js'
import { NoteFolderSchema } from '../note-folders/schema.js'
import { NOTE_LIST } from './query.js'
import { BulkUpdateNotesBody, CreateNoteBody, NoteSchema, UpdateNoteBody } from './schema.js'
import { bulkUpdateNotes, createNote, deleteNote, getNoteFor, listNotes, updateNote } from './service.js'

const TAG = 'Notes'
const Note = envelope('note', NoteSchema)
const Expanded = NoteSchema.extend({
  expand: z
    .strictObject({
      folder: orNull(NoteFolderSchema).optional(),
      board: orNull(BoardSchema).optional(),
      card: orNull(CardSchema).optional().meta({ description: 'Null when the note has no card, or its card has moved to another board.' }),
    })
    .optional(),
})

export const noteRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/notes',
    operationId: 'listNotes',
    tag: TAG,
    access: 'read',
    summary: 'List the notes the caller sees: those of their boards, and their board-less ones (owners and admins: all); newest change first',
    query: listQuery(NOTE_LIST),
    responses: { 200: { description: 'A page of notes', schema: pageSchema(Expanded, 'NotePage') } },
    handler: async ({ deps, actor, query }) => ({ status: 200, body: await listNotes(deps, actor, query) }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/notes',
    operationId: 'createNote',
    tag: TAG,
    access: 'write',
    summary: 'Create a note on a board, on a card (and its board), or board-less; optionally in a folder on the same board',
    body: CreateNoteBody,
    errors: [404],
    responses: { 201: { description: 'The note', schema: Note } },
    handler: async ({ deps, actor, body }) => ({ status: 201, body: { note: await createNote(deps, actor, body) } }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/notes/bulk-update',
    operationId: 'bulkUpdateNotes',
    tag: TAG,
    access: 'write',
    summary: 'Move many notes to a folder and/or a board; each note that cannot change (not seen: not_found) is listed in failed',
    body: BulkUpdateNotesBody,
    responses: { 200: { description: 'How many notes changed, and why the others did not', schema: BulkResult } },
    handler: async ({ deps, actor, body }) => ({
      status: 200,
      body: await bulkUpdateNotes(deps, actor, body.notes, { folder: body.folder, board: body.board }),
    }),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/notes/{id}',
    operationId: 'getNote',
    tag: TAG,
    access: 'read',
    summary: 'Get a note',
    params: idParam,
    query: z.object({ expand: z.string().max(500).optional().meta({ description: 'folder, board, card' }) }),
    responses: { 200: { description: 'The note', schema: envelope('note', Expanded) } },
    handler: async ({ deps, actor, params, query }) => ({ status: 200, body: { note: await getNoteFor(deps, actor, params.id, query.expand) } }),
  }),
  defineRoute({
    method: 'patch',
    path: '/v1/notes/{id}',
    operationId: 'updateNote',
    tag: TAG,
    access: 'write',
    summary: 'Edit a note, or move it to another folder, card or board (a note that changes board leaves its card and folder unless they are given)',
    params: idParam,
    body: UpdateNoteBody,
    responses: { 200: { description: 'The note', schema: Note } },
    handler: async ({ deps, actor, params, body }) => ({ status: 200, body: { note: await updateNote(deps, actor, params.id, body) } }),
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/notes/{id}',
    operationId: 'deleteNote',
    tag: TAG,
    access: 'write',
    summary: 'Delete a note (and its publication: its public URL answers 404 at once)',
    params: idParam,
    responses: { 204: { description: 'Deleted' } },
    handler: async ({ deps, actor, params }) => {
      await deleteNote(deps, actor, params.id)
      return { status: 204 }
    },
  }),
]

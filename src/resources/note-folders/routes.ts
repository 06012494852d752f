// /v1/note-folders: folders of notes, on a board or board-less.
import { z } from 'zod'
import { defineRoute } from '../../http/route.js'
import { envelope, idParam, orNull } from '../../http/schemas.js'
import { listQuery, pageSchema } from '../../query/list-page.js'
import { BoardSchema } from '../boards/schema.js'
import { NOTE_FOLDER_LIST } from './query.js'
import { CreateNoteFolderBody, NoteFolderSchema, UpdateNoteFolderBody } from './schema.js'
import { createNoteFolder, deleteNoteFolder, getNoteFolderFor, listNoteFolders, updateNoteFolder } from './service.js'

const TAG = 'Note folders'
const NoteFolder = envelope('note_folder', NoteFolderSchema)
const Expanded = NoteFolderSchema.extend({
  expand: z
    .strictObject({
      parent: orNull(NoteFolderSchema).optional().meta({ description: 'Null at the top, or when the parent is out of sight.' }),
      board: orNull(BoardSchema).optional(),
    })
    .optional(),
})

export const noteFolderRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/note-folders',
    operationId: 'listNoteFolders',
    tag: TAG,
    access: 'read',
    summary: 'List the note folders the caller sees: those of their boards, and their board-less ones (owners and admins: all)',
    query: listQuery(NOTE_FOLDER_LIST),
    responses: { 200: { description: 'A page of folders', schema: pageSchema(Expanded, 'NoteFolderPage') } },
    handler: async ({ deps, actor, query }) => ({ status: 200, body: await listNoteFolders(deps, actor, query) }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/note-folders',
    operationId: 'createNoteFolder',
    tag: TAG,
    access: 'write',
    summary: 'Create a folder on a board (or board-less), at the top or inside a parent on the same board (422 otherwise)',
    body: CreateNoteFolderBody,
    errors: [404],
    responses: { 201: { description: 'The folder', schema: NoteFolder } },
    handler: async ({ deps, actor, body }) => ({ status: 201, body: { note_folder: await createNoteFolder(deps, actor, body) } }),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/note-folders/{id}',
    operationId: 'getNoteFolder',
    tag: TAG,
    access: 'read',
    summary: 'Get a note folder',
    params: idParam,
    query: z.object({ expand: z.string().max(500).optional().meta({ description: 'parent, board' }) }),
    responses: { 200: { description: 'The folder', schema: envelope('note_folder', Expanded) } },
    handler: async ({ deps, actor, params, query }) => ({ status: 200, body: { note_folder: await getNoteFolderFor(deps, actor, params.id, query.expand) } }),
  }),
  defineRoute({
    method: 'patch',
    path: '/v1/note-folders/{id}',
    operationId: 'updateNoteFolder',
    tag: TAG,
    access: 'write',
    summary: 'Rename a folder, or move it under another parent on its board (null: to the top); a folder never goes inside itself (422)',
    params: idParam,
    body: UpdateNoteFolderBody,
    responses: { 200: { description: 'The folder', schema: NoteFolder } },
    handler: async ({ deps, actor, params, body }) => ({ status: 200, body: { note_folder: await updateNoteFolder(deps, actor, params.id, body) } }),
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/note-folders/{id}',
    operationId: 'deleteNoteFolder',
    tag: TAG,
    access: 'write',
    summary: 'Delete a folder and its sub-folders; their notes stay, in no folder',
    params: idParam,
    responses: { 204: { description: 'Deleted' } },
    handler: async ({ deps, actor, params }) => {
      await deleteNoteFolder(deps, actor, params.id)
      return { status: 204 }
    },
  }),
]

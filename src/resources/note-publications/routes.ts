// /v1/note-publications: publish notes at public URLs, list and unpublish them; the public URL itself is public.ts.
import { z } from 'zod'
import { defineRoute } from '../../http/route.js'
import { envelope, idParam } from '../../http/schemas.js'
import { listQuery, pageSchema } from '../../query/list-page.js'
import { NoteSchema } from '../notes/schema.js'
import { NOTE_PUBLICATION_LIST } from './query.js'
import { NotePublicationSchema, PublicNoteSchema, PublishNoteBody } from './schema.js'
import { getNotePublicationFor, listNotePublications, publishNote, unpublishNote } from './service.js'

const TAG = 'Note publications'
const NotePublication = envelope('note_publication', NotePublicationSchema)
const Expanded = NotePublicationSchema.extend({ expand: z.strictObject({ note: NoteSchema }).optional() })

export const notePublicationRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/note-publications',
    operationId: 'listNotePublications',
    tag: TAG,
    access: 'read',
    summary: 'List the publications of the notes the caller sees; latest refresh first',
    query: listQuery(NOTE_PUBLICATION_LIST),
    responses: { 200: { description: 'A page of publications', schema: pageSchema(Expanded, 'NotePublicationPage') } },
    handler: async ({ deps, actor, query }) => ({ status: 200, body: await listNotePublications(deps, actor, query) }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/note-publications',
    operationId: 'publishNote',
    tag: TAG,
    access: 'write',
    summary:
      'Publish a note the caller may edit at a public URL (201); publishing it again refreshes the copy with its current title and body, with the same slug and URL (200)',
    body: PublishNoteBody,
    errors: [404],
    responses: {
      200: { description: 'The refreshed publication', schema: NotePublication },
      201: { description: 'The new publication', schema: NotePublication },
    },
    handler: async ({ deps, actor, body }) => {
      const { created, publication } = await publishNote(deps, actor, body.note)
      return { status: created ? 201 : 200, body: { note_publication: publication } }
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/note-publications/{id}',
    operationId: 'getNotePublication',
    tag: TAG,
    access: 'read',
    summary: 'Get a publication',
    params: idParam,
    query: z.object({ expand: z.string().max(500).optional().meta({ description: 'note' }) }),
    responses: { 200: { description: 'The publication', schema: envelope('note_publication', Expanded) } },
    handler: async ({ deps, actor, params, query }) => ({
      status: 200,
      body: { note_publication: await getNotePublicationFor(deps, actor, params.id, query.expand) },
    }),
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/note-publications/{id}',
    operationId: 'unpublishNote',
    tag: TAG,
    access: 'write',
    summary: 'Unpublish: the public URL answers 404 at once (publishing the note again gives a new URL)',
    params: idParam,
    responses: { 204: { description: 'Unpublished' } },
    handler: async ({ deps, actor, params }) => {
      await unpublishNote(deps, actor, params.id)
      return { status: 204 }
    },
  }),
]

/** `/v1/note-publications/public/{slug}` as documented: public.ts answers it, outside the bearer-token routes. */
export const publicNoteDoc = defineRoute({
  method: 'get',
  path: '/v1/note-publications/public/{slug}',
  operationId: 'getPublicNote',
  tag: TAG,
  access: 'public',
  summary: 'A published note, for anyone with its URL: no token, the random slug is the key',
  description: [
    'JSON by default: the published copy only (title, Markdown body, when it was published and last refreshed), no ids, author or board.',
    'With `Accept: text/html`: an HTML page with the Markdown rendered (raw HTML escaped, javascript: and similar links refused, links rel="nofollow noopener noreferrer"),',
    "served with `Content-Security-Policy: default-src 'none'; style-src 'unsafe-inline'; img-src https: data:` (and no base, forms or framing), `X-Content-Type-Options: nosniff` and `Referrer-Policy: no-referrer`.",
    'Every answer is `Cache-Control: no-store`: an unknown, unpublished or deleted note answers 404 at once (a small HTML page for text/html), as does a note whose board is in the trash.',
  ].join(' '),
  params: z.object({ slug: z.string().meta({ description: 'The random part of the publication URL.' }) }),
  responses: { 200: { description: 'The published copy', schema: envelope('note_publication', PublicNoteSchema) } },
  handler: () => {
    throw new Error('documented only: public.ts answers /v1/note-publications/public/{slug}')
  },
})

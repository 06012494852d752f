// Note publications: a copy of a note anyone may read at a public URL whose random slug is the only key.
import { z } from 'zod'
import { orNull, UserRef } from '../../http/schemas.js'

export const NotePublicationSchema = z
  .strictObject({
    id: z.string(),
    note: z.string(),
    slug: z.string().meta({ description: "32 random base62 characters (about 190 bits): the public URL's only key." }),
    url: z.string().meta({
      description: '{TASKD_BASE_URL}/v1/note-publications/public/<slug>: anyone with it reads the published copy, without a token, until it is unpublished.',
    }),
    title: z.string().meta({ description: 'The title of the published copy.' }),
    created_by: orNull(UserRef),
    created: z.string().meta({ description: 'When the note was first published.' }),
    updated: z.string().meta({ description: 'When the copy was last refreshed from the note.' }),
  })
  .meta({ id: 'NotePublication' })
export type NotePublicationView = z.infer<typeof NotePublicationSchema>

export const PublishNoteBody = z.strictObject({ note: z.string().min(1).meta({ description: 'A note the caller may edit.' }) }).meta({ id: 'PublishNoteBody' })

/** What the public URL shows: the copy only, no ids, no author, no board. */
export const PublicNoteSchema = z
  .strictObject({
    title: z.string(),
    body: z.string().meta({ description: 'Markdown.' }),
    published: z.string().meta({ description: 'When the note was first published.' }),
    updated: z.string().meta({ description: 'When the copy was last refreshed.' }),
  })
  .meta({ id: 'PublicNote' })
export type PublicNoteView = z.infer<typeof PublicNoteSchema>

// Files: attachments of cards and notes, their bytes kept in the database in chunks of at most 1 MB.
import { z } from 'zod'
import { orNull, UserRef } from '../../http/schemas.js'

/** Bytes per stored chunk: chunk n holds bytes n × CHUNK_BYTES to (n + 1) × CHUNK_BYTES − 1 of its file. */
export const CHUNK_BYTES = 1_048_576

export const FileSchema = z
  .strictObject({
    id: z.string(),
    name: z.string().meta({ description: 'The file name as uploaded, without any folder part (at most 255 characters).' }),
    size: z.number().int().meta({ description: 'Bytes.' }),
    content_type: z.string().meta({ description: 'The media type sent with the file part (`type/subtype`), or `application/octet-stream`.' }),
    sha256: z.string().meta({ description: 'Hex SHA-256 of the bytes; the download carries it, quoted, as its `ETag`.' }),
    card: z.string().nullable().meta({ description: 'The card it is attached to, or null.' }),
    note: z.string().nullable().meta({ description: 'The note it is attached to, or null.' }),
    created_by: orNull(UserRef),
    created: z.string(),
  })
  .meta({
    id: 'File',
    example: {
      id: '01JDX3W6ZC9V1Q2R3S4T5U6V7W',
      name: 'invoice-2026-11.pdf',
      size: 48213,
      content_type: 'application/pdf',
      sha256: '9f2c1b6d4e0a7f3c8b5d2e1a0f9c8b7a6d5e4f3c2b1a0f9e8d7c6b5a4f3e2d1c',
      card: '01JDX3T2K8M4N6P8Q0R2S4T6V8',
      note: null,
      created_by: { id: '01JDX1A2B3C4D5E6F7G8H9J0K1', name: 'Ada' },
      created: '2026-11-27T10:15:00.000Z',
    },
  })
export type FileView = z.infer<typeof FileSchema>

/** POST /v1/files as the document shows it: multipart/form-data, the owner's field before the one file part. */
export const UploadFileBody = z
  .strictObject({
    card: z.string().optional().meta({ description: 'The card to attach the file to (this or `note`, before the file part).' }),
    note: z.string().optional().meta({ description: 'The note to attach the file to (this or `card`, before the file part).' }),
    file: z.string().meta({ format: 'binary', description: 'The file: one part with a filename; its Content-Type is kept as the content type.' }),
  })
  .meta({ id: 'UploadFileBody', example: { card: '01JDX3T2K8M4N6P8Q0R2S4T6V8', file: '(the bytes of invoice-2026-11.pdf)' } })

export const FileListParams = z.object({
  card: z.string().optional().meta({ description: 'Only the files of this card (404 when you cannot see it).' }),
  note: z.string().optional().meta({ description: 'Only the files of this note (404 when you cannot see it).' }),
})

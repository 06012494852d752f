// Entity links: from a card to a card, a note, a milestone or a URL. The record, the bodies and their rules.
import { z } from 'zod'
import { orNull, UserRef } from '../../http/schemas.js'

export const LINK_KINDS = ['relates_to', 'duplicates', 'parent_of'] as const
export const TARGET_TYPES = ['card', 'note', 'milestone', 'url'] as const
export const LinkKind = z.enum(LINK_KINDS).meta({
  description:
    '`relates_to` (either way round is the same link), `duplicates` (the source duplicates the target) or `parent_of` (the source card is the parent of the target card; the target card shows it as `parent`).',
})

const title = z.string().trim().min(1).max(500).meta({ description: 'A label for the target, 1 to 500 characters (a URL’s page title, say).' })
/** An http(s) URL, stored as given: taskd never follows or fetches it. */
const httpUrl = z
  .string()
  .max(2048)
  .refine((v) => {
    try {
      const u = new URL(v)
      return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== ''
    } catch {
      return false
    }
  }, 'url must be an http:// or https:// URL.')
  .meta({ description: 'An http:// or https:// URL, up to 2,048 characters; stored only, never fetched.' })

const LinkSource = z.strictObject({ type: z.literal('card'), id: z.string() }).meta({ id: 'EntityLinkSource' })
const LinkTarget = z
  .strictObject({
    type: z.enum(TARGET_TYPES),
    id: z.string().optional().meta({ description: 'The card, note or milestone (record id); absent for a URL.' }),
    url: z.string().optional().meta({ description: 'The URL of a `url` target.' }),
    title: z.string().optional().meta({ description: 'Its label, when one was given.' }),
  })
  .meta({ id: 'EntityLinkTarget' })

export const EntityLinkSchema = z
  .strictObject({
    id: z.string(),
    kind: LinkKind,
    source: LinkSource,
    target: LinkTarget,
    created_by: orNull(UserRef),
    created: z.string(),
  })
  .meta({
    id: 'EntityLink',
    example: {
      id: '2s4vwyg5t2rj8w0e',
      kind: 'relates_to',
      source: { type: 'card', id: '2s4vwyd1zzcel93k' },
      target: { type: 'url', url: 'https://example.com/spec', title: 'The spec' },
      created_by: { id: '2s4vwy9c2hq7n4pd', name: 'Ana' },
      created: '2026-11-21T12:00:00.000Z',
    },
  })
export type EntityLinkView = z.infer<typeof EntityLinkSchema>

export const CreateEntityLinkBody = z
  .strictObject({
    kind: LinkKind,
    source: z.strictObject({
      type: z.literal('card').default('card'),
      id: z.string().min(1).meta({ description: 'The card (record id) the link starts from.' }),
    }),
    target: z.discriminatedUnion('type', [
      z.strictObject({ type: z.literal('card'), id: z.string().min(1), title: title.optional() }),
      z.strictObject({ type: z.literal('note'), id: z.string().min(1), title: title.optional() }),
      z.strictObject({ type: z.literal('milestone'), id: z.string().min(1), title: title.optional() }),
      z.strictObject({ type: z.literal('url'), url: httpUrl, title: title.optional() }),
    ]),
  })
  .meta({
    id: 'CreateEntityLinkBody',
    example: { kind: 'parent_of', source: { type: 'card', id: '2s4vwyd1zzcel93k' }, target: { type: 'card', id: '2s4vwydjhblds2lz' } },
  })
export type CreateEntityLinkInput = z.infer<typeof CreateEntityLinkBody>

export const UpdateEntityLinkBody = z
  .strictObject({ title: title.nullable().optional().meta({ description: 'A new label for the target; null clears it.' }) })
  .meta({ id: 'UpdateEntityLinkBody', example: { title: 'The spec, version 2' } })
export type UpdateEntityLinkInput = z.infer<typeof UpdateEntityLinkBody>

// Signing secrets: the record (never the value) and its bodies.
import { z } from 'zod'
import { name, orNull, UserRef } from '../../http/schemas.js'

export const SigningSecretSchema = z
  .strictObject({
    id: z.string(),
    name: z.string(),
    created_by: orNull(UserRef),
    created_at: z.string(),
    updated_at: z.string(),
    rotating_until: z.string().nullable().meta({
      description:
        'While a rotation overlaps: until when the value before it still signs `webhook-signature` beside the new one (ISO 8601 UTC); null otherwise.',
    }),
  })
  .meta({ id: 'SigningSecret' })
export type SigningSecretView = z.infer<typeof SigningSecretSchema>

const value = z
  .string()
  .min(16, 'Use at least 16 characters.')
  .max(4096)
  .meta({ description: 'The key, write-only: stored encrypted and never returned, also not to its creator.', writeOnly: true })

export const CreateSigningSecretBody = z.strictObject({ name, value }).meta({ id: 'CreateSigningSecretBody' })
export type CreateSigningSecretInput = z.infer<typeof CreateSigningSecretBody>
export const ReplaceSigningSecretBody = z.strictObject({ value, name: name.optional() }).meta({ id: 'ReplaceSigningSecretBody' })
export type ReplaceSigningSecretInput = z.infer<typeof ReplaceSigningSecretBody>

/** Hours the value before a rotation keeps signing beside the new one: 0 to 168 (a week), 24 by default. */
export const overlapHours = z.number().int().min(0).max(168).default(24).meta({
  description:
    'Hours the old value keeps signing `webhook-signature` beside the new one (`v1,<new> v1,<old>`), 0 to 168; 0 ends it at once. `X-Webhook-Signature-V2` uses the new value at once.',
})
export const RotateSigningSecretBody = z
  .strictObject({
    value: value.optional().meta({ description: 'The new key, write-only; omitted: taskd generates one and answers it this once as `value`.' }),
    overlap_hours: overlapHours,
  })
  .meta({ id: 'RotateSigningSecretBody', examples: [{ overlap_hours: 24 }, { value: 'runner-key-2026-12-0123456789', overlap_hours: 48 }] })
export type RotateSigningSecretInput = z.infer<typeof RotateSigningSecretBody>
export const RotatedSigningSecret = z
  .strictObject({
    signing_secret: SigningSecretSchema,
    value: z.string().optional().meta({ description: 'Only when taskd generated the new value: shown this once.' }),
  })
  .meta({
    id: 'RotatedSigningSecret',
    examples: [
      {
        signing_secret: {
          id: '2s4vwyd1zzcel93k',
          name: 'Runner',
          created_by: { id: '2s4vwydjhblds2lz', name: 'Ann' },
          created_at: '2026-11-01T09:00:00.000Z',
          updated_at: '2026-11-21T12:00:00.000Z',
          rotating_until: '2026-11-22T12:00:00.000Z',
        },
        value: 'whsec_9mR2c0kq3xV8bW1nZ4tY7uP6sL5aD2fG0hJ3kE8iQ1o',
      },
    ],
  })

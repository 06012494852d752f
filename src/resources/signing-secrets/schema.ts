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

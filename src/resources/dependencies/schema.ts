// Dependencies between cards: `blocker` blocks `blocked`. The record, the create body and the list's own parameter.
import { z } from 'zod'
import { orNull, UserRef } from '../../http/schemas.js'

export const DependencySchema = z
  .strictObject({
    id: z.string(),
    blocker: z.string().meta({ description: 'The card (record id) that blocks the other.' }),
    blocked: z.string().meta({ description: 'The card (record id) that waits for the blocker.' }),
    created_by: orNull(UserRef),
    created: z.string(),
  })
  .meta({
    id: 'Dependency',
    example: {
      id: '01JD5X3T8Y4Q2W6E9R0T1Y2U3I',
      blocker: '01JD5X2M0A1B2C3D4E5F6G7H8J',
      blocked: '01JD5X2P9K8L7M6N5P4Q3R2S1T',
      created_by: { id: '01JD5W0000000000000000USER', name: 'Ana' },
      created: '2026-11-21T12:00:00.000Z',
    },
  })
export type DependencyView = z.infer<typeof DependencySchema>

export const CreateDependencyBody = z
  .strictObject({
    blocker: z.string().min(1).meta({ description: 'The card (record id) that blocks; you must see it.' }),
    blocked: z.string().min(1).meta({ description: 'The card (record id) that is blocked; you must see it. It may be on another board.' }),
  })
  .meta({
    id: 'CreateDependencyBody',
    example: { blocker: '01JD5X2M0A1B2C3D4E5F6G7H8J', blocked: '01JD5X2P9K8L7M6N5P4Q3R2S1T' },
  })
export type CreateDependencyInput = z.infer<typeof CreateDependencyBody>

/** A card as a dependency shows it: `expand=dependencies` of cards, `expand=cards` of dependencies. */
export const DependencyCardSchema = z
  .strictObject({ id: z.string(), key: z.string(), title: z.string(), completed: z.boolean() })
  .meta({ id: 'DependencyCard' })
export type DependencyCard = z.infer<typeof DependencyCardSchema>

/** `expand=dependencies` of a card. */
export const CardDependenciesSchema = z
  .strictObject({
    blocked_by: z.array(DependencyCardSchema).meta({ description: 'The cards that block this one (those you can see).' }),
    blocking: z.array(DependencyCardSchema).meta({ description: 'The cards this one blocks (those you can see).' }),
  })
  .meta({ id: 'CardDependencies' })

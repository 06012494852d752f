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
      id: '2s4vwyf0a8kq3m1x',
      blocker: '2s4vwyd1zzcel93k',
      blocked: '2s4vwydjhblds2lz',
      created_by: { id: '2s4vwy9c2hq7n4pd', name: 'Ana' },
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
    example: { blocker: '2s4vwyd1zzcel93k', blocked: '2s4vwydjhblds2lz' },
  })
export type CreateDependencyInput = z.infer<typeof CreateDependencyBody>

/** A card as a dependency shows it: `expand=dependencies` of cards, `expand=cards` of dependencies. */
export const DependencyCardSchema = z
  .strictObject({ id: z.string(), key: z.string(), title: z.string(), completed: z.boolean() })
  .meta({ id: 'DependencyCard' })
export type DependencyCard = z.infer<typeof DependencyCardSchema>

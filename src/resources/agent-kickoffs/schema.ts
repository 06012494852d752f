// Agent kickoffs: handing a card to an agent, delivered in the background.
import { z } from 'zod'
import { AgentPower } from '../../access/roles.js'
import { agrees } from '../../db/agrees.js'
import type { AgentKickoffsTable } from '../../db/types.js'
import { orNull } from '../../http/schemas.js'
import { StepRef } from '../agent-runs/schema.js'
import { CardSchema } from '../cards/schema.js'

export const KICKOFF_STATUSES = ['pending', 'delivered', 'queued', 'expired', 'cancelled'] as const
export const EFFORTS = ['low', 'medium', 'high', 'max'] as const
// The value sets and the CHECK constraints of schema.sql agree, or the build fails.
agrees<(typeof KICKOFF_STATUSES)[number], AgentKickoffsTable['status']>()
agrees<(typeof EFFORTS)[number], NonNullable<AgentKickoffsTable['effort']>>()

/** The kickoff list's own query parameters (filter, sort and paging come on top). */
export const KickoffListQuery = z.object({
  card: z.string().optional().meta({ description: 'Only kickoffs of this card.' }),
  agent: z.string().optional().meta({ description: 'Only kickoffs of this agent.' }),
  status: z.enum(KICKOFF_STATUSES).optional(),
})
export type KickoffListParams = z.infer<typeof KickoffListQuery>

export const KickoffSchema = z
  .strictObject({
    id: z.string(),
    card: z.string(),
    agent: z.strictObject({ id: z.string(), name: z.string() }),
    workflow: z.string().nullable(),
    step: orNull(StepRef),
    powers: z.array(AgentPower).meta({ description: 'The powers asked for; empty: any the agent has.' }),
    model: z.string().nullable(),
    effort: z.enum(EFFORTS).nullable(),
    message: z.string().nullable(),
    status: z.enum(KICKOFF_STATUSES),
    via: AgentPower.nullable(),
    attempts: z.number().int(),
    next_attempt_at: z.string().nullable().meta({ description: 'When delivery is tried next; null once delivered, expired or cancelled.' }),
    expires_at: z.string(),
    run: z.string().meta({ description: 'The agent run this kickoff starts.' }),
    requested_by: z.strictObject({ id: z.string(), name: z.string(), kind: z.string() }),
    last_error: z.string().nullable().meta({ description: 'Why the last delivery attempt did not deliver.' }),
    delivered_at: z.string().nullable(),
    created: z.string(),
    updated: z.string(),
  })
  .meta({ id: 'Kickoff' })
export type KickoffView = z.infer<typeof KickoffSchema>

export const CreateKickoffBody = z
  .strictObject({
    card: z.string().min(1).meta({ description: 'The card (record id) to hand over.' }),
    agent: z.string().min(1).optional().meta({ description: 'The agent (a member of the card’s board); default: the first step of the workflow.' }),
    workflow: z.string().min(1).optional().meta({ description: "A workflow of the card's board; default: the board's default workflow." }),
    powers: z
      .array(AgentPower)
      .max(3)
      .refine((p) => new Set(p).size === p.length, 'Must not repeat a power.')
      .optional()
      .meta({ description: 'Narrows delivery to these of the agent’s powers; empty or left out: any it has.' }),
    model: z.string().trim().min(1).max(200).optional().meta({ description: 'A hint for an agent on its owner’s desktop.' }),
    effort: z.enum(EFFORTS).optional().meta({ description: 'A hint for an agent on its owner’s desktop; some values apply only to some agent kinds.' }),
    message: z.string().max(20_000).optional().meta({ description: 'What to tell the agent, up to 20,000 characters.' }),
    expires_in_minutes: z
      .number()
      .int()
      .min(1)
      .max(10_080)
      .default(1440)
      .meta({ description: 'Give up delivering after this many minutes, 1 to 10,080 (default 1,440: a day).' }),
  })
  .meta({ id: 'CreateKickoffBody' })
export type CreateKickoffInput = z.input<typeof CreateKickoffBody>

export const ClaimKickoffBody = z
  .strictObject({ wait_seconds: z.number().int().min(0).max(30).default(0).meta({ description: 'How long to wait for a kickoff, 0 to 30 seconds.' }) })
  .meta({ id: 'ClaimKickoffBody' })

export const ClaimedKickoffSchema = z.strictObject({ kickoff: KickoffSchema, card: CardSchema }).meta({ id: 'ClaimedKickoff' })

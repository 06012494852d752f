// Automations: the record, its trigger and steps as written (placeholders kept as text), and the run record.
import { z } from 'zod'
import { agrees } from '../../db/agrees.js'
import type { AutomationRunStepsTable, AutomationRunsTable, AutomationsTable } from '../../db/types.js'
import { name, orNull, UserRef } from '../../http/schemas.js'

const text = (max: number) => z.string().max(max)
/** A field that is its own type, or a text with placeholders resolved (and converted) when the step runs. */
const orTemplate = <T extends z.ZodType>(schema: T) => z.union([schema, text(2000)])
const ids = z.union([z.array(text(200)).max(100), text(2000)]).meta({ description: 'Ids, or a text of comma-separated ids (placeholders allowed).' })
const cardRef = text(200).min(1).meta({ description: 'Card id, usually a placeholder such as `{steps.1.card.id}` or `{event.data.id}`.' })

export const STEP_TYPES = ['create_card', 'update_card', 'move_card', 'complete_card', 'add_comment', 'kickoff_agent', 'http_request'] as const
export const HttpStepMethod = z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'])

const cardFields = {
  description: text(100_000).optional(),
  list: text(200).min(1).optional(),
  priority: orTemplate(z.number().int().min(0).max(4)).optional(),
  assignees: ids.optional(),
  tags: ids.optional(),
  due_date: text(100).nullable().optional(),
}

export const CreateCardStep = z.strictObject({
  type: z.literal('create_card'),
  title: text(2000).min(1),
  ...cardFields,
  attach_files: z.boolean().optional().meta({ description: "Attach the incoming request's files to the card (default true)." }),
})
export const UpdateCardStep = z.strictObject({
  type: z.literal('update_card'),
  card: cardRef,
  title: text(2000).min(1).optional(),
  ...cardFields,
  watchers: ids.optional(),
  position: orTemplate(z.number().finite()).optional(),
  start_date: text(100).nullable().optional(),
  completed: orTemplate(z.boolean()).optional(),
  archived: orTemplate(z.boolean()).optional(),
  trashed: orTemplate(z.boolean()).optional(),
})
export const MoveCardStep = z.strictObject({ type: z.literal('move_card'), card: cardRef, list: text(200).min(1) })
export const CompleteCardStep = z.strictObject({ type: z.literal('complete_card'), card: cardRef, completed: orTemplate(z.boolean()).optional() })
export const AddCommentStep = z.strictObject({ type: z.literal('add_comment'), card: cardRef, body: text(100_000).min(1) })
export const KickoffAgentStep = z.strictObject({
  type: z.literal('kickoff_agent'),
  card: cardRef,
  agent: text(200).optional(),
  workflow: text(200).optional(),
  powers: z.array(text(50)).max(10).optional(),
  message: text(10_000).optional(),
})
export const HttpRequestStep = z.strictObject({
  type: z.literal('http_request'),
  method: HttpStepMethod,
  url: text(2048).min(1).meta({
    description:
      'http(s) URL. Placeholders may fill its path and query, never its scheme, host or port. A filled-in value is percent-encoded, dots and slashes included (`..` → `%2E%2E`, `/` → `%2F`), and sent as written: inside a path segment it stays that one segment, so `/tenant/{a}/admin` never climbs out of `/tenant/`.',
  }),
  headers: z
    .record(text(100), text(4096))
    .optional()
    .meta({ description: 'Header values may hold `{secret.<id>}`, replaced by the signing secret only in the request sent.' }),
  body: text(1_048_576).optional(),
  signing_secret: text(64).optional().meta({ description: 'Signing secret id: adds X-Webhook-Timestamp and X-Webhook-Signature-V2.' }),
  timeout_ms: z.number().int().min(1).max(30_000).optional().meta({ description: 'Default 10,000.' }),
})

export const Step = z
  .discriminatedUnion('type', [CreateCardStep, UpdateCardStep, MoveCardStep, CompleteCardStep, AddCommentStep, KickoffAgentStep, HttpRequestStep])
  .meta({ id: 'AutomationStep' })
export type Step = z.infer<typeof Step>
export type HttpRequestStep = z.infer<typeof HttpRequestStep>

export const EventTrigger = z.strictObject({
  type: z.literal('event'),
  events: z.array(text(100).min(1)).min(1).max(50).meta({ description: 'Event names, `<family>.*` or `*`.' }),
  filter: text(3500).optional().meta({ description: 'Card filter: only events about a card that matches it (events of no card never pass).' }),
})
export const Trigger = z
  .discriminatedUnion('type', [
    z.strictObject({ type: z.literal('incoming_webhook'), endpoint: text(64).min(1) }),
    EventTrigger,
    z.strictObject({
      type: z.literal('schedule'),
      cron: text(200).min(1).meta({ description: '5-field cron: minute hour day-of-month month day-of-week.' }),
      timezone: text(100).default('UTC'),
    }),
  ])
  .meta({ id: 'AutomationTrigger' })
export type Trigger = z.infer<typeof Trigger>

const steps = z.array(Step).min(1).max(20)
/** The steps as an automation and its runs keep them (checked when written). */
export const StepList = z.array(Step)

export const CreateAutomationBody = z
  .strictObject({ name, board: text(64).min(1), active: z.boolean().default(true), trigger: Trigger, steps })
  .meta({ id: 'CreateAutomationBody' })
export type CreateAutomationInput = z.infer<typeof CreateAutomationBody>
export const UpdateAutomationBody = z
  .strictObject({
    name: name.optional(),
    active: z.boolean().optional().meta({ description: 'On or off; turning on an automation taskd paused clears its `paused_reason`.' }),
    trigger: Trigger.optional(),
    steps: steps.optional(),
  })
  .meta({ id: 'UpdateAutomationBody' })
export type UpdateAutomationInput = z.infer<typeof UpdateAutomationBody>

export const RunStatus = z.enum(['queued', 'running', 'succeeded', 'failed'])
export const StepStatus = z.enum(['succeeded', 'failed', 'skipped'])
export const TriggerType = z.enum(['incoming_webhook', 'event', 'schedule'])
export const PausedReason = z.enum(['chain_too_deep', 'too_many_runs'])
// The enums and the CHECK constraints of schema.sql agree, or the build fails.
agrees<z.infer<typeof RunStatus>, AutomationRunsTable['status']>()
agrees<z.infer<typeof StepStatus>, AutomationRunStepsTable['status']>()
agrees<z.infer<typeof TriggerType>, AutomationsTable['trigger_type']>()
agrees<Trigger['type'], AutomationsTable['trigger_type']>()
agrees<z.infer<typeof PausedReason>, NonNullable<AutomationsTable['paused_reason']>>()

export const AutomationSchema = z
  .strictObject({
    id: z.string(),
    name: z.string(),
    board: z.string(),
    active: z.boolean(),
    paused_reason: PausedReason.nullable().meta({
      description:
        'Why taskd turned the automation off itself, when it did: `chain_too_deep`, a chain of automations starting one another (through their changes, agents they kicked off, or calls to incoming endpoints) grew past 8; `too_many_runs`, it started more runs in a minute than the server allows (`TASKD_AUTOMATION_RUNS_PER_MINUTE`, default 1,000). Null otherwise; turning the automation on again clears it.',
    }),
    trigger: Trigger,
    steps: z.array(Step),
    next_run_at: z.string().nullable().meta({ description: 'Schedule triggers: the next slot; null otherwise.' }),
    created_by: orNull(UserRef),
    created: z.string(),
    updated: z.string(),
    last_run: z.strictObject({ id: z.string(), status: RunStatus, at: z.string() }).nullable(),
  })
  .meta({ id: 'Automation' })
export type AutomationView = z.infer<typeof AutomationSchema>

export const RunActor = z.strictObject({ type: z.enum([...TriggerType.options, 'user']), id: z.string(), name: z.string() })
export type RunActor = z.infer<typeof RunActor>
export const RunTrigger = z.strictObject({
  type: TriggerType,
  endpoint: z.string().optional(),
  request: z.string().optional().meta({ description: 'The incoming request (its log id) that started the run.' }),
  event: z.string().optional().meta({ description: 'The event name.' }),
  event_id: z.string().optional(),
  scheduled_for: z.string().optional(),
})
export type RunTrigger = z.infer<typeof RunTrigger>

export const RunStepSchema = z.strictObject({
  index: z.number().int().meta({ description: '1-based, as in `{steps.<n>...}`.' }),
  type: z.enum(STEP_TYPES),
  status: StepStatus,
  output: z.unknown().meta({
    description:
      'create/update/move/complete: { card }; http_request: { status, headers, body }, with every echo of a secret the step sent taken out (as sent, JSON-escaped, percent-encoded, HTML-escaped, hex, base64 or base64url). null for a viewer who may not manage the automation (see `details_hidden`).',
  }),
  error: z.string().nullable().meta({ description: 'Why the step failed; null also for a viewer who may not manage the automation.' }),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
})
export const AutomationRunSchema = z
  .strictObject({
    id: z.string(),
    automation: z.string(),
    status: RunStatus,
    trigger: RunTrigger,
    actor: RunActor,
    steps: z.array(RunStepSchema),
    details_hidden: z.literal(true).optional().meta({
      description:
        "Present when the viewer sees how the run went but not what its steps sent and got back: each step's `output` and `error` are then null. They are shown to those who may manage the automation (a write or Full Access token on its board), and where the run's steps use signing secrets, to owners and admins only.",
    }),
    error: z
      .string()
      .nullable()
      .meta({ description: 'Why the run failed, when no step says it (the board went to the trash, the automation was turned off).' }),
    created: z.string(),
    started_at: z.string().nullable(),
    finished_at: z.string().nullable(),
  })
  .meta({ id: 'AutomationRun' })
export type AutomationRunView = z.infer<typeof AutomationRunSchema>
export type RunStepView = z.infer<typeof RunStepSchema>

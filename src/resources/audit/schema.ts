// The audit log: who did what to the workspace's setup, as an append-only entry.
import { z } from 'zod'

/** Who did it: a person or an agent through a token, what an automation run or incoming endpoint acted for, the command line, or taskd itself. */
export const AUDIT_ACTOR_TYPES = ['user', 'agent', 'automation', 'incoming_webhook', 'form', 'git', 'cli', 'system'] as const
export type AuditActorType = (typeof AUDIT_ACTOR_TYPES)[number]

/**
 * Every action the log records, `<target type>.<verb>`. A new one is added here, where the code that does it calls
 * `audit` (record.ts); the list is also the OpenAPI document's.
 */
export const AUDIT_ACTIONS = [
  'token.created',
  'token.revoked',
  'user.created',
  'user.role_changed',
  'agent.created',
  'agent.updated',
  'board.member_added',
  'board.member_removed',
  'board.member_role_changed',
  'board.trashed',
  'board.restored',
  'board.deleted',
  'webhook.created',
  'webhook.updated',
  'webhook.deleted',
  'webhook.paused',
  'webhook.resumed',
  'webhook.secret_rotated',
  'incoming_webhook.created',
  'incoming_webhook.updated',
  'incoming_webhook.deleted',
  'automation.created',
  'automation.updated',
  'automation.deleted',
  'automation.paused',
  'signing_secret.created',
  'signing_secret.updated',
  'signing_secret.rotated',
  'signing_secret.deleted',
  'workspace.exported',
  'workspace.imported',
  'workspace.restored',
  'session.created',
  'session.revoked',
  'signin.failed',
  'password.changed',
  'login_link.created',
  'login_link.used',
] as const
export type AuditAction = (typeof AUDIT_ACTIONS)[number]

/** What an entry is about, as the action's first part names it. */
export type AuditTargetType = 'token' | 'user' | 'agent' | 'board' | 'webhook' | 'incoming_webhook' | 'automation' | 'signing_secret' | 'workspace'

export const AuditActorSchema = z
  .strictObject({
    type: z.enum(AUDIT_ACTOR_TYPES),
    id: z.string().nullable().meta({ description: 'The user, agent, automation or endpoint id; null for the command line and taskd itself.' }),
    name: z.string().meta({ description: 'The name at the time (for the command line: the operating-system user who ran it).' }),
  })
  .meta({
    id: 'AuditActor',
    description:
      'Who did it: `user` or `agent` (through a token), `automation` or `incoming_webhook` (what a run acted for), `cli` (a `taskd` command on the server) or `system` (taskd itself, e.g. pausing a failing subscription or emptying the trash).',
  })
export type AuditActor = z.infer<typeof AuditActorSchema>

export const AuditTargetSchema = z
  .strictObject({
    type: z.string().meta({ description: 'token, user, agent, board, webhook, incoming_webhook, automation, signing_secret or workspace.' }),
    id: z.string().nullable(),
    name: z.string().nullable().meta({ description: 'The name at the time; it may have changed or be gone since.' }),
  })
  .meta({ id: 'AuditTarget', description: 'What the action was done to.' })
export type AuditTarget = z.infer<typeof AuditTargetSchema>

/** The values an entry's details hold: what changed, by name; never a secret, a credential or a token value. */
export type AuditDetails = Record<string, unknown>

const EXAMPLE = {
  id: '0d2kq8vz00000001',
  action: 'token.created',
  actor: { type: 'user', id: 'u_123', name: 'Ada Owner' },
  target: { type: 'token', id: 't_456', name: 'CI deploys' },
  board: null,
  details: { permission: 'write', user: { id: 'u_123', name: 'Ada Owner' }, expires_at: null },
  request_id: '5d0c2f0e-4b1a-4c8e-9d55-0b8f9f3c1e77',
  created: '2026-11-21T12:00:00.000Z',
}

export const AuditEntrySchema = z
  .strictObject({
    id: z.string(),
    action: z.string().meta({ description: `What was done, \`<target type>.<verb>\`: ${AUDIT_ACTIONS.map((a) => `\`${a}\``).join(', ')}.` }),
    actor: AuditActorSchema,
    target: AuditTargetSchema,
    board: z.string().nullable().meta({ description: 'The board the action concerns (the board itself, or the one a membership is on); null otherwise.' }),
    details: z.record(z.string(), z.unknown()).meta({
      description: 'What changed: field names of an edit, roles before and after, a permission, counts. Never a secret, credential, token value or password.',
    }),
    request_id: z.string().nullable().meta({ description: 'The X-Request-Id of the API request that did it; null for the command line and taskd itself.' }),
    created: z.string(),
  })
  .meta({ id: 'AuditEntry', examples: [EXAMPLE] })
export type AuditEntryView = z.infer<typeof AuditEntrySchema>

// Users: the record, bodies and list parameters.
import { z } from 'zod'
import { AgentPower, Role, UserKind } from '../../access/roles.js'
import { name, UserRef } from '../../http/schemas.js'
import { passwordFields } from '../sessions/schema.js'

export const UserSchema = z
  .strictObject({
    id: z.string(),
    email: z.string(),
    name: z.string(),
    role: Role,
    kind: UserKind,
    agent: z
      .strictObject({
        owner: UserRef,
        wake_url: z.string().nullable().meta({ description: 'Shown to owners, admins, the agent and its owner; null to others.' }),
        signing_secret: z.string().nullable().meta({ description: 'Shown to owners, admins, the agent and its owner; null to others.' }),
        powers: z.array(AgentPower),
      })
      .optional()
      .meta({ id: 'AgentProfile', description: 'Agents only (in the users routes): who owns it and how it is reached.' }),
    created: z.string(),
    created_at: z.string().meta({ description: 'Deprecated alias of `created`, kept until v2.', deprecated: true }),
  })
  .meta({ id: 'User' })
export type UserView = z.infer<typeof UserSchema>

/**
 * An email address as a self-hosted workspace has them: a local part, `@` and a host, where the host may be a local name
 * without a dot (`carol@localhost`, `ana@nas`) as well as a domain. The one check for the API and the CLI alike.
 */
const EMAIL_PATTERN = /^[^\s@<>()[\]\\,;:"]+@[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?(?:\.[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?)*$/u
const email = z
  .string()
  .trim()
  .max(320)
  .regex(EMAIL_PATTERN, 'email must be an address with a name, @ and a host, e.g. carol@localhost or ana@example.com.')
  .meta({ description: 'An email address: a local part and a host; a local host name without a dot (`carol@localhost`) is taken.' })
const powers = z
  .array(AgentPower)
  .min(1)
  .refine((p) => new Set(p).size === p.length, 'Must not repeat a power.')
const url = z.string().min(1).max(2048)
const agentFields = {
  owner: z.string().min(1).meta({ description: 'The human user who owns the agent (their desktop app claims its local_access kickoffs).' }),
  wake_url: url.meta({ description: 'auto_start: the URL of the agent’s runner; kickoffs are POSTed to it, V2-signed with `signing_secret`.' }),
  signing_secret: z.string().min(1).meta({ description: 'A signing secret id.' }),
  powers: powers.meta({ description: 'How the agent can be reached: auto_start, local_access, service_ai.' }),
}
export const CreateUserBody = z
  .strictObject({
    email: email.optional().meta({ description: 'Required for people; agents get `agent-<id>@agents.invalid` without one.' }),
    name,
    role: Role.default('member'),
    kind: UserKind.default('human'),
    agent: z
      .strictObject({
        owner: agentFields.owner,
        wake_url: agentFields.wake_url.optional(),
        signing_secret: agentFields.signing_secret.optional(),
        powers: agentFields.powers,
      })
      .optional()
      .meta({ description: 'Required for `kind: "agent"`, refused otherwise.' }),
  })
  .superRefine((b, ctx) => {
    if (b.kind === 'human' && b.email === undefined) ctx.addIssue({ code: 'custom', path: ['email'], message: 'Required for a person.' })
    if (b.kind === 'human' && b.agent !== undefined) ctx.addIssue({ code: 'custom', path: ['agent'], message: 'Only agents have an agent profile.' })
    if (b.kind === 'agent' && b.agent === undefined) ctx.addIssue({ code: 'custom', path: ['agent'], message: 'Required for an agent.' })
    if (b.kind === 'agent' && b.role !== 'member') ctx.addIssue({ code: 'custom', path: ['role'], message: 'An agent is always a member.' })
  })
  .meta({ id: 'CreateUserBody' })
export type CreateUserInput = z.infer<typeof CreateUserBody>
export const UpdateUserBody = z
  .strictObject({
    email: email.optional(),
    name: name.optional(),
    role: Role.optional(),
    agent: z
      .strictObject({
        owner: agentFields.owner.optional(),
        wake_url: agentFields.wake_url.nullable().optional(),
        signing_secret: agentFields.signing_secret.nullable().optional(),
        powers: agentFields.powers.optional(),
      })
      .optional()
      .meta({ description: 'Agents only. `null` clears wake_url or signing_secret.' }),
  })
  .meta({ id: 'UpdateUserBody' })
export type UpdateUserInput = z.infer<typeof UpdateUserBody>
export const UpdateMeBody = z.strictObject({ email: email.optional(), name: name.optional(), ...passwordFields }).meta({
  id: 'UpdateMeBody',
  description: 'Your own name, email and password; your role is changed by an owner or admin.',
  examples: [{ name: 'Ada Lovelace' }, { password: 'a new long passphrase', current_password: 'the one I have now' }],
})
export type UpdateMeInput = z.infer<typeof UpdateMeBody>

// Workspace roles, token permissions and who counts as an admin: the one definition of each.
import { z } from 'zod'
import { agrees } from '../db/agrees.js'
import type { AgentKickoffsTable, TokensTable, UsersTable } from '../db/types.js'
import { PERMISSIONS, ROLES } from './role-names.js'

export const Role = z.enum(ROLES)
export type Role = z.infer<typeof Role>
export const UserKind = z.enum(['human', 'agent'])
export type UserKind = z.infer<typeof UserKind>
/** How an agent can be reached, in the order kickoff delivery tries them. */
export const POWERS = ['auto_start', 'local_access', 'service_ai'] as const
export const AgentPower = z.enum(POWERS)
export type AgentPower = z.infer<typeof AgentPower>
/** An agent's powers, as its profile and its kickoffs keep them. */
export const AgentPowers = z.array(AgentPower)
export const Permission = z.enum(PERMISSIONS)
export type Permission = z.infer<typeof Permission>

// The enums above and the CHECK constraints of schema.sql agree, or the build fails.
agrees<Role, UsersTable['role']>()
agrees<UserKind, UsersTable['kind']>()
agrees<Permission, TokensTable['permission']>()
agrees<AgentPower, NonNullable<AgentKickoffsTable['via']>>()

/**
 * Who caused a change, as events carry it: a user, what started an automation run (for a change the run made), or the
 * public form whose submission made it, or the git connection whose hook made it (a repository rule moving or
 * completing a card).
 */
export interface ActorRef {
  id: string
  name: string
  kind?: 'incoming_webhook' | 'automation' | 'form' | 'git'
}

/**
 * The caller of a request: a user acting through one of their tokens, or their browser session. An automation run acts through an Actor too,
 * with `run` set: it sees only its automation's board, its changes are attributed to `run.as`, and its events start no
 * event automations (no loops). `user` is then a stand-in that is never written anywhere. A public form's submission
 * acts the same way (`run.as` is the form, `run.id` the submission), and so does a git connection's hook when a
 * repository rule changes cards (`run.as` is the connection, `run.board` the repository's board).
 */
export interface Actor {
  user: UsersTable
  tokenId: string
  permission: Permission
  /** Set when the request came with a browser session's cookie instead of a token (tokenId is then empty). */
  sessionId?: string
  run?: { id: string; board: string; as: ActorRef }
  /**
   * The automations whose runs led to what this actor does, oldest first: a run's own (its automation last), or, for an
   * agent answering a kickoff a run made, that kickoff's. An automation in it is never started again by what follows.
   */
  chain?: readonly string[]
  /** The X-Request-Id of the API request acting (the audit log keeps it); none outside a request. */
  requestId?: string
}

/** The actor as events and records name it. */
export const actorRef = (actor: Actor): ActorRef => actor.run?.as ?? { id: actor.user.id, name: actor.user.name }
/**
 * The actor with its kind, as records that show who wrote or caused them carry it (comment authors, inbox items). A run
 * a user started (the trigger route) acts for that user: a `run.as` without a kind is a user.
 */
export const actorWithKind = (actor: Actor): { id: string; name: string; kind: UserKind | NonNullable<ActorRef['kind']> } =>
  actor.run
    ? { id: actor.run.as.id, name: actor.run.as.name, kind: actor.run.as.kind ?? 'human' }
    : { id: actor.user.id, name: actor.user.name, kind: actor.user.kind }
/** The user to record as a row's creator: none for a change an automation run made. */
export const creatorId = (actor: Actor): string | null => (actor.run ? null : actor.user.id)

export const PERMISSION_RANK: Record<Permission, number> = { read: 0, write: 1, full: 2 }

/** Owners and admins manage the workspace and see every board. */
export const ADMIN_ROLES: readonly Role[] = ['owner', 'admin']
export const isAdminRole = (role: Role): boolean => ADMIN_ROLES.includes(role)
export const isAdmin = (actor: Actor): boolean => isAdminRole(actor.user.role)

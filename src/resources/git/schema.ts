// Git hosts: connections (one per GitHub, GitLab or Gitea account or instance, with its hook secret), the repositories
// their hooks report (with a board and rules), and the branches, commits and pull requests that mention cards.
import { z } from 'zod'
import { agrees } from '../../db/agrees.js'
import type { GitConnectionsTable, GitResourcesTable } from '../../db/types.js'
import { name, UserRef } from '../../http/schemas.js'

export const GitProvider = z.enum(['github', 'gitlab', 'gitea']).meta({ description: 'The code host: `github`, `gitlab` or `gitea`.' })
export type GitProvider = z.infer<typeof GitProvider>
export const GitResourceKind = z.enum(['branch', 'commit', 'pull_request'])
export type GitResourceKind = z.infer<typeof GitResourceKind>
agrees<GitProvider, GitConnectionsTable['provider']>()
agrees<GitResourceKind, GitResourcesTable['kind']>()

/** What a rule reacts to: a pull (merge) request opened or merged, a pipeline of the repository failing. */
export const RULE_TRIGGERS = ['pull_request.opened', 'pull_request.merged', 'pipeline.failed'] as const
export type RuleTrigger = (typeof RULE_TRIGGERS)[number]

export const GitRule = z
  .strictObject({
    on: z.enum(RULE_TRIGGERS).meta({
      description:
        '`pull_request.opened` (a pull or merge request opened or re-opened), `pull_request.merged`, or `pipeline.failed` (a pipeline of the repository turned `failure`).',
    }),
    move_to: z.string().min(1).max(64).optional().meta({ description: 'A list (record id) of the repository’s board the linked cards move to.' }),
    complete: z.boolean().optional().meta({ description: 'true completes the linked cards, false re-opens them (the completion rule of cards applies).' }),
  })
  .refine((r) => r.move_to !== undefined || r.complete !== undefined, { message: 'A rule needs move_to, complete or both.' })
  .meta({ id: 'GitRule' })
export type GitRule = z.infer<typeof GitRule>
export const GitRules = z.array(GitRule).max(20)

const SECRET_ABOUT =
  'Write-only: the secret the host signs its hooks with (GitHub and Gitea: the HMAC key; GitLab: the secret token it sends). 8 to 255 printable ASCII characters; generated (64 hex characters) when absent. Never shown again after the response that made it.'
const secret = z
  .string()
  .min(8)
  .max(255)
  .regex(/^[\x20-\x7e]+$/, 'Must be printable ASCII.')
  .meta({ description: SECRET_ABOUT })

export const GitConnectionSchema = z
  .strictObject({
    id: z.string(),
    provider: GitProvider,
    name: z.string(),
    hook_url: z.string().meta({ description: 'Where the host sends its hooks: `{base_url}/v1/git/connections/{id}/hooks` (content type JSON).' }),
    created_by: UserRef.nullable(),
    created: z.string(),
    updated: z.string(),
  })
  .meta({ id: 'GitConnection' })
export type GitConnectionView = z.infer<typeof GitConnectionSchema>

export const CreateGitConnectionBody = z
  .strictObject({
    provider: GitProvider,
    name: name.meta({ description: 'A label, 1 to 200 characters.' }),
    secret: secret.optional(),
  })
  .meta({ id: 'CreateGitConnectionBody', examples: [{ provider: 'github', name: 'GitHub: acme' }] })
export type CreateGitConnectionInput = z.infer<typeof CreateGitConnectionBody>

export const UpdateGitConnectionBody = z
  .strictObject({
    name: name.optional().meta({ description: 'A label, 1 to 200 characters.' }),
    secret: secret.optional().meta({ description: `A new secret replaces the stored one at once (hooks signed with the old one answer 401). ${SECRET_ABOUT}` }),
  })
  .meta({ id: 'UpdateGitConnectionBody', examples: [{ name: 'GitHub: acme-corp' }] })
export type UpdateGitConnectionInput = z.infer<typeof UpdateGitConnectionBody>

export const GitConnectionWithSecret = z
  .strictObject({
    git_connection: GitConnectionSchema,
    secret: z.string().meta({ description: 'The hook secret, shown this once: paste it into the host’s webhook settings.' }),
  })
  .meta({ id: 'GitConnectionWithSecret' })

export const GitRepositorySchema = z
  .strictObject({
    id: z.string(),
    connection: z.string().meta({ description: 'The git connection (record id) whose hooks report it.' }),
    full_name: z.string().meta({ description: '`owner/name` (GitLab: the path with its namespace, `group/subgroup/name`).' }),
    url: z.string(),
    board: z
      .string()
      .nullable()
      .meta({ description: 'The board its mentions link to and its rules act on; null: mentions link cards of any board, no rule acts.' }),
    rules: z.array(GitRule),
    created: z.string(),
    updated: z.string(),
  })
  .meta({ id: 'GitRepository' })
export type GitRepositoryView = z.infer<typeof GitRepositorySchema>

const fullName = z
  .string()
  .trim()
  .min(3)
  .max(300)
  .regex(/^[^\s/]+(\/[^\s/]+)+$/, 'Must be owner/name (GitLab: group/subgroup/name).')
const repoUrl = z
  .string()
  .max(2000)
  .regex(/^https?:\/\/[^\s#]+$/, 'Must be an http:// or https:// URL without a # fragment.')
const rulesField = GitRules.meta({
  description: 'At most 20; each `move_to` must be a list of the repository’s board, and rules need a board.',
})
const boardField = z.string().min(1).max(64).nullable().meta({ description: 'A board (record id), or null.' })

export const CreateGitRepositoryBody = z
  .strictObject({
    connection: z.string().min(1).max(64).meta({ description: 'The git connection (record id).' }),
    full_name: fullName.meta({ description: '`owner/name`; unique per connection, ignoring case.' }),
    url: repoUrl.optional().meta({ description: 'The repository’s web address; for GitHub and GitLab connections it defaults to github.com / gitlab.com.' }),
    board: boardField.optional(),
    rules: rulesField.optional(),
  })
  .meta({
    id: 'CreateGitRepositoryBody',
    examples: [
      {
        connection: 'c_123',
        full_name: 'acme/api',
        board: 'b_123',
        rules: [
          { on: 'pull_request.merged', complete: true },
          { on: 'pull_request.opened', move_to: 'l_review' },
        ],
      },
    ],
  })
export type CreateGitRepositoryInput = z.infer<typeof CreateGitRepositoryBody>

export const UpdateGitRepositoryBody = z
  .strictObject({
    url: repoUrl.optional(),
    board: boardField.optional().meta({ description: 'A board (record id), or null; the rules are checked against the board it leaves the repository on.' }),
    rules: rulesField.optional(),
  })
  .meta({ id: 'UpdateGitRepositoryBody', examples: [{ board: 'b_123', rules: [{ on: 'pipeline.failed', move_to: 'l_todo' }] }] })
export type UpdateGitRepositoryInput = z.infer<typeof UpdateGitRepositoryBody>

export const GitResourceSchema = z
  .strictObject({
    id: z.string(),
    repository: z.string().meta({ description: 'The repository (record id).' }),
    kind: GitResourceKind,
    ref: z.string().meta({ description: 'The branch name, the commit’s full SHA, or the pull (merge) request’s number.' }),
    title: z.string().meta({ description: 'The branch name, the first line of the commit message, or the pull request’s title.' }),
    url: z.string(),
    state: z.string().meta({ description: 'branch: `active` or `deleted`; commit: `pushed`; pull_request: `open`, `closed` or `merged`.' }),
    author: z.string().nullable().meta({ description: 'The host’s user name of who pushed, committed or opened it.' }),
    cards: z.array(z.string()).meta({ description: 'The cards (record ids) it mentions and links, those the caller sees.' }),
    created: z.string(),
    updated: z.string(),
  })
  .meta({ id: 'GitResource' })
export type GitResourceView = z.infer<typeof GitResourceSchema>

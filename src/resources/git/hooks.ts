// The hooks of each code host, read into one shape: which event (from the host's event header), the repository, and
// what the event says about branches, commits, pull (merge) requests or CI runs. Only the fields used are read, each
// checked by a loose schema (a host adds fields freely); a payload without them is a HookPayloadError (400).
import { z } from 'zod'
import type { PipelinesTable } from '../../db/types.js'
import type { PipelineReport } from '../pipelines/service.js'
import type { GitProvider } from './schema.js'

/** A CI run as a hook reports it: its times are absent (undefined) when the hook does not carry them. */
export type HookPipelineReport = Omit<PipelineReport, 'id'>

export interface RepositoryRef {
  fullName: string
  url: string
}

export interface PushedCommit {
  sha: string
  message: string
  url: string
  author: string | null
}

export type PullAction = 'opened' | 'reopened' | 'merged' | 'closed' | 'other'

export type HookEvent =
  | {
      type: 'push'
      repository: RepositoryRef
      branch: string | null
      deleted: boolean
      pusher: string | null
      branchUrl: string | null
      commits: PushedCommit[]
    }
  | {
      type: 'pull_request'
      repository: RepositoryRef
      number: string
      title: string
      body: string
      url: string
      state: 'open' | 'closed' | 'merged'
      author: string | null
      branch: string | null
      action: PullAction
    }
  | { type: 'pipeline'; repository: RepositoryRef; run: HookPipelineReport }
  | { type: 'ping' }
  | { type: 'ignored'; event: string }

/** A payload that does not have what its event needs: answered 400 naming the event and the field (415 for a body type). */
export class HookPayloadError extends Error {
  constructor(
    message: string,
    readonly status: 400 | 415 = 400,
  ) {
    super(message)
  }
}

/** The header that names the event, per host. */
export const EVENT_HEADER: Record<GitProvider, string> = { github: 'x-github-event', gitlab: 'x-gitlab-event', gitea: 'x-gitea-event' }

/** Commits read from one push at most (GitLab sends at most 20; GitHub up to 2,048). */
export const MAX_COMMITS = 100

const ZERO_SHA = /^0+$/
// Names, refs, titles and URLs: at most 2,000 characters each (no host sends longer; a payload that does is refused).
// Commit messages and descriptions are only read for card keys and kept as their first line: any length the body has.
const text = z.string().max(2000)
const optText = text.nullish()
const longText = z.string()
const optLongText = longText.nullish()
const user = z.looseObject({ login: optText, username: optText, name: optText }).nullish()
const who = (u: z.infer<typeof user>): string | null => u?.login || u?.username || u?.name || null

/** `refs/heads/<branch>` → the branch; a tag or another ref → null. */
const branchOf = (ref: string): string | null => (ref.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : null)
/** A commit's title: the first line of its message, at most 500 characters. */
export const firstLine = (message: string): string => message.split('\n', 1)[0].trim().slice(0, 500)

function parse<S extends z.ZodType>(schema: S, body: unknown, event: string): z.output<S> {
  const result = schema.safeParse(body)
  if (result.success) return result.data
  const issue = result.error.issues[0]
  throw new HookPayloadError(`This is not a ${event} hook payload: ${issue.path.join('.') || 'the body'} ${issue.message.toLowerCase()}.`)
}

/** An ISO 8601 time from a host's time (GitLab writes `2016-08-12 15:23:28 UTC`); undefined when absent or unreadable. */
export function isoTime(value: string | null | undefined): string | undefined {
  if (!value) return undefined
  const t = Date.parse(value.replace(/^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}) UTC$/, '$1T$2Z'))
  return Number.isNaN(t) ? undefined : new Date(t).toISOString()
}

// GitHub and Gitea share their payload shapes (Gitea's are modelled on GitHub's).
const HubRepository = z.looseObject({ full_name: text, html_url: text })
const HubPush = z.looseObject({
  ref: text,
  after: optText,
  deleted: z.boolean().nullish(),
  repository: HubRepository,
  pusher: user,
  sender: user,
  commits: z.array(z.looseObject({ id: text, message: longText, url: text, author: user })).nullish(),
})
const HubPull = z.looseObject({
  action: text,
  number: z.number().int(),
  repository: HubRepository,
  pull_request: z.looseObject({
    title: text,
    body: optLongText,
    html_url: text,
    state: text,
    merged: z.boolean().nullish(),
    user,
    head: z.looseObject({ ref: optText }).nullish(),
  }),
})
const HubWorkflowRun = z.looseObject({
  repository: HubRepository,
  workflow_run: z.looseObject({
    id: z.number().int(),
    name: optText,
    display_title: optText,
    head_branch: optText,
    head_sha: optText,
    status: optText,
    conclusion: optText,
    html_url: optText,
    run_started_at: optText,
    updated_at: optText,
    head_commit: z.looseObject({ message: optLongText }).nullish(),
  }),
})

/** GitHub's (and Gitea's) run status and conclusion as a pipeline status. */
export function hubStatus(status: string | null | undefined, conclusion: string | null | undefined): PipelinesTable['status'] {
  if (status === 'completed') {
    if (conclusion === 'success' || conclusion === 'neutral') return 'success'
    if (conclusion === 'cancelled' || conclusion === 'skipped' || conclusion === 'stale') return 'canceled'
    return 'failure'
  }
  return status === 'in_progress' ? 'running' : 'queued'
}

function hubEvent(provider: 'github' | 'gitea', event: string, body: unknown): HookEvent {
  if (event === 'ping') return { type: 'ping' }
  if (event === 'push') {
    const p = parse(HubPush, body, event)
    const repository = { fullName: p.repository.full_name, url: p.repository.html_url }
    const branch = branchOf(p.ref)
    const tree = provider === 'github' ? 'tree' : 'src/branch'
    return {
      type: 'push',
      repository,
      branch,
      deleted: Boolean(p.deleted) || ZERO_SHA.test(p.after ?? ''),
      pusher: who(p.pusher) ?? who(p.sender),
      branchUrl: branch === null ? null : `${repository.url}/${tree}/${branch}`,
      commits: (p.commits ?? []).slice(0, MAX_COMMITS).map((c) => ({ sha: c.id, message: c.message, url: c.url, author: who(c.author) })),
    }
  }
  if (event === 'pull_request') {
    const p = parse(HubPull, body, event)
    const pr = p.pull_request
    const merged = Boolean(pr.merged)
    const action: PullAction =
      p.action === 'opened' ? 'opened' : p.action === 'reopened' ? 'reopened' : p.action === 'closed' ? (merged ? 'merged' : 'closed') : 'other'
    return {
      type: 'pull_request',
      repository: { fullName: p.repository.full_name, url: p.repository.html_url },
      number: String(p.number),
      title: pr.title,
      body: pr.body ?? '',
      url: pr.html_url,
      state: merged ? 'merged' : pr.state === 'closed' ? 'closed' : 'open',
      author: who(pr.user),
      branch: pr.head?.ref ?? null,
      action,
    }
  }
  if (event === 'workflow_run') {
    const p = parse(HubWorkflowRun, body, event)
    const run = p.workflow_run
    const status = hubStatus(run.status, run.conclusion)
    const final = status === 'success' || status === 'failure' || status === 'canceled'
    return {
      type: 'pipeline',
      repository: { fullName: p.repository.full_name, url: p.repository.html_url },
      run: {
        provider_id: String(run.id),
        name: run.name || run.display_title || `Run ${run.id}`,
        branch: run.head_branch ?? null,
        commit: run.head_sha ?? null,
        commit_message: run.head_commit?.message ?? null,
        status,
        url: run.html_url ?? null,
        started_at: isoTime(run.run_started_at),
        finished_at: final ? isoTime(run.updated_at) : undefined,
      },
    }
  }
  return { type: 'ignored', event }
}

const LabProject = z.looseObject({ path_with_namespace: text, web_url: text })
const LabPush = z.looseObject({
  ref: text,
  after: optText,
  user_username: optText,
  user_name: optText,
  project: LabProject,
  commits: z.array(z.looseObject({ id: text, message: longText, url: text, author: user })).nullish(),
})
const LabMerge = z.looseObject({
  user,
  project: LabProject,
  object_attributes: z.looseObject({
    iid: z.number().int(),
    title: text,
    description: optLongText,
    url: text,
    state: text,
    action: optText,
    source_branch: optText,
  }),
})
const LabPipeline = z.looseObject({
  project: LabProject,
  object_attributes: z.looseObject({
    id: z.number().int(),
    name: optText,
    ref: optText,
    tag: z.boolean().nullish(),
    sha: optText,
    status: text,
    created_at: optText,
    finished_at: optText,
    url: optText,
  }),
  commit: z.looseObject({ message: optText }).nullish(),
})

/** GitLab's pipeline status as a pipeline status. */
export function labStatus(status: string): PipelinesTable['status'] {
  if (status === 'running' || status === 'canceling') return 'running'
  if (status === 'success') return 'success'
  if (status === 'failed') return 'failure'
  if (status === 'canceled' || status === 'skipped') return 'canceled'
  return 'queued' // created, waiting_for_resource, preparing, pending, scheduled, manual
}

/** GitLab names its hooks in X-Gitlab-Event ("Push Hook", "Merge Request Hook", "Pipeline Hook", ...). */
function labEvent(event: string, body: unknown): HookEvent {
  if (event === 'Push Hook') {
    const p = parse(LabPush, body, event)
    const repository = { fullName: p.project.path_with_namespace, url: p.project.web_url }
    const branch = branchOf(p.ref)
    return {
      type: 'push',
      repository,
      branch,
      deleted: ZERO_SHA.test(p.after ?? ''),
      pusher: p.user_username || p.user_name || null,
      branchUrl: branch === null ? null : `${repository.url}/-/tree/${branch}`,
      commits: (p.commits ?? []).slice(0, MAX_COMMITS).map((c) => ({ sha: c.id, message: c.message, url: c.url, author: who(c.author) })),
    }
  }
  if (event === 'Merge Request Hook') {
    const p = parse(LabMerge, body, event)
    const mr = p.object_attributes
    const actions: Record<string, PullAction> = { open: 'opened', reopen: 'reopened', merge: 'merged', close: 'closed' }
    return {
      type: 'pull_request',
      repository: { fullName: p.project.path_with_namespace, url: p.project.web_url },
      number: String(mr.iid),
      title: mr.title,
      body: mr.description ?? '',
      url: mr.url,
      state: mr.state === 'merged' ? 'merged' : mr.state === 'closed' ? 'closed' : 'open',
      author: who(p.user),
      branch: mr.source_branch ?? null,
      action: actions[mr.action ?? ''] ?? 'other',
    }
  }
  if (event === 'Pipeline Hook') {
    const p = parse(LabPipeline, body, event)
    const run = p.object_attributes
    const repository = { fullName: p.project.path_with_namespace, url: p.project.web_url }
    const status = labStatus(run.status)
    return {
      type: 'pipeline',
      repository,
      run: {
        provider_id: String(run.id),
        name: run.name || `Pipeline #${run.id}`,
        branch: run.tag ? null : (run.ref ?? null),
        commit: run.sha ?? null,
        commit_message: p.commit?.message ?? null,
        status,
        url: run.url ?? `${repository.url}/-/pipelines/${run.id}`,
        started_at: isoTime(run.created_at),
        finished_at: status === 'success' || status === 'failure' || status === 'canceled' ? isoTime(run.finished_at) : undefined,
      },
    }
  }
  return { type: 'ignored', event }
}

/** The event a host's hook brings, read from its event header and its JSON body. */
export function readHook(provider: GitProvider, event: string, body: unknown): HookEvent {
  return provider === 'gitlab' ? labEvent(event, body) : hubEvent(provider, event, body)
}

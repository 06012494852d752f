// The kickoff dispatcher: a user of the job runner that tries each claimed kickoff's powers in order (auto_start,
// local_access, service_ai); what is not delivered is queued for its next attempt (TASKD_AGENT_RETRY_DELAYS) until it
// expires. A process that dies mid-attempt leaves its lease, which runs out, so the kickoff is attempted again with the
// same id; once delivered it is never sent again. Each round also flags quiet runs as stalled.
import type { Dispatcher } from 'undici'
import { isoAt } from '../../clock.js'
import type { Actor } from '../../access/roles.js'
import type { AgentKickoffsTable, UsersTable } from '../../db/types.js'
import type { Deps } from '../../deps.js'
import { JobRunner } from '../../jobs/runner.js'
import { JobWorker } from '../../jobs/worker.js'
import { retryAt } from '../../jobs/retry.js'
import { actingAgent, flagStalledRuns, moveRun, SYSTEM_ACTOR } from '../agent-runs/lifecycle.js'
import { lockRun } from '../agent-runs/published.js'
import { cardUrl } from '../cards/present.js'
import { getCard } from '../cards/published.js'
import { checklistsOfCards, itemsOfChecklists } from '../checklists/published.js'
import { createCommentIn } from '../comments/service.js'
import { commentsOfCard } from '../comments/published.js'
import { getAgentProfile, getUser } from '../users/published.js'
import { getWorkflow } from '../agent-workflows/published.js'
import { aiTurn, callRunner, usablePowers, targetOf, type Target } from './delivery.js'
import { kickoffViews } from './present.js'
import { type AgentPower, AgentPowers } from '../../access/roles.js'
import { fromJsonColumn, StringList } from '../../db/json.js'
import { COMMENT_MAX_CHARS, CommentAuthor } from '../comments/schema.js'
import { KickoffSchema } from './schema.js'
import { deliverIn, expireIn } from './service.js'
import { anyDueKickoff, claimDueKickoffs, claimWaitOpen, getKickoff, nextKickoffDue, releaseKickoffs, settleUndelivered } from './store.js'

export interface DispatcherOptions {
  concurrency?: number
  pollMs?: number
  /** For auto_start and service_ai calls (tests inject one). */
  dispatcher?: Dispatcher
  log?: (msg: string, err?: unknown) => void
}

/** Comments of the card an AI turn reads. */
const RECENT_COMMENTS = 10
/** A proposal's summary keeps this much of the AI's reply (the whole reply is the comment). */
const SUMMARY_CHARS = 2000
const CUT_NOTE = '\n\n…(the reply was cut here: a comment holds at most 100,000 characters)'

/** The AI's reply as a comment: a reply longer than any comment may be is cut, and says so, rather than lost. */
export function replyAsComment(reply: string): string {
  return reply.length <= COMMENT_MAX_CHARS ? reply : reply.slice(0, COMMENT_MAX_CHARS - CUT_NOTE.length) + CUT_NOTE
}

/** The agent acting on a kickoff: what it does carries the kickoff's chain, so it starts none of those automations again. */
const agentFor = (agent: UsersTable, kickoff: AgentKickoffsTable): Actor => ({ ...actingAgent(agent), chain: fromJsonColumn(StringList, kickoff.chain) })

export class KickoffDispatcher extends JobWorker<AgentKickoffsTable> {
  protected readonly jobs: JobRunner<AgentKickoffsTable>
  private readonly log: (msg: string, err?: unknown) => void

  constructor(
    private readonly deps: Deps,
    private readonly opts: DispatcherOptions = {},
  ) {
    super()
    const longest = Math.max(deps.config.webhookTimeoutMs, deps.config.aiUrl ? deps.config.aiTimeoutMs : 0)
    this.log = opts.log ?? ((msg, err) => console.error(msg, err))
    this.jobs = new JobRunner(deps, {
      name: 'agent kickoffs',
      queue: { hasDue: anyDueKickoff, claim: claimDueKickoffs, nextDueAt: nextKickoffDue, release: releaseKickoffs },
      run: (kickoff) => this.attempt(kickoff),
      concurrency: opts.concurrency ?? 4,
      pollMs: opts.pollMs ?? 1000,
      leaseMs: deps.config.agentLeaseMs ?? longest + 20_000,
      log: this.log,
      // Unexpected (a database error): the lease brings the kickoff back later.
      failure: (kickoff) => `agent kickoff ${kickoff.id}: attempt failed unexpectedly`,
      beforeClaim: () =>
        flagStalledRuns(deps).then(
          () => {},
          (err: unknown) => this.log('agent runs: the stall sweep failed', err),
        ),
    })
  }

  /** One delivery attempt: each usable power in order until one delivers; otherwise queued for later, or expired. */
  private async attempt(claimed: AgentKickoffsTable): Promise<void> {
    const { deps } = this
    const { q } = deps.db
    // Read again: cancelled (or claimed) since this process took its lease, it is not sent.
    const kickoff = await getKickoff(q, claimed.id)
    if (!kickoff || (kickoff.status !== 'pending' && kickoff.status !== 'queued')) return
    const now = deps.clock.now()
    if (isoAt(now) >= kickoff.expires_at) return deps.db.tx((tx) => expireIn(deps, tx, SYSTEM_ACTOR, kickoff))
    const profile = await getAgentProfile(q, kickoff.agent_id)
    const target = await targetOf(q, kickoff, profile)
    const errors: string[] = []
    let leftForClaim = false
    for (const power of usablePowers(fromJsonColumn(AgentPowers, kickoff.powers), profile, target, deps.config)) {
      if (power === 'auto_start') {
        const problem = await callRunner(deps, target, kickoff, await this.payload(kickoff, target), this.opts.dispatcher)
        if (!problem) return this.deliver(kickoff, 'auto_start')
        errors.push(problem)
      } else if (power === 'local_access') {
        // An app of the owner is waiting on the claim route, in this process or another on the database: the kickoff is
        // left for it (released below, then told here, and a wait in another process through the claims channel).
        if (deps.claimWaiters.has(kickoff.agent_id) || (await claimWaitOpen(q, kickoff.agent_id, now))) {
          leftForClaim = true
          break
        }
        errors.push('local_access: no desktop app was waiting to claim it.')
      } else {
        try {
          return await this.serviceAi(kickoff, target)
        } catch (err) {
          errors.push(err instanceof Error ? err.message : String(err))
        }
      }
    }
    await this.requeue(kickoff, errors.join(' '))
    if (leftForClaim) {
      deps.claimWaiters.notify([kickoff.agent_id])
      // A claimer waiting in another process (PostgreSQL); should this fail, that claimer's next look finds it.
      await deps.db.wake('claims', kickoff.agent_id).catch((err: unknown) => this.log('agent kickoffs: waking claimers elsewhere failed', err))
    }
  }

  private async deliver(kickoff: AgentKickoffsTable, via: AgentPower): Promise<void> {
    const agent = (await getUser(this.deps.db.q, kickoff.agent_id))!
    await this.deps.db.tx((tx) => deliverIn(this.deps, tx, agentFor(agent, kickoff), kickoff, via))
  }

  /** Not delivered: the next attempt after the retry delay for this attempt (the last delay repeats), at most at expiry. */
  private async requeue(kickoff: AgentKickoffsTable, error: string): Promise<void> {
    const { deps } = this
    const now = deps.clock.now()
    await settleUndelivered(deps.db.q, kickoff.id, {
      status: 'queued',
      attempts: kickoff.attempts + 1,
      next_attempt_at: retryAt(now, deps.config.agentRetryDelays, kickoff.attempts, Date.parse(kickoff.expires_at)),
      lease_until: 0,
      last_error: error || null,
      updated_at: isoAt(now),
    })
  }

  /** What auto_start POSTs to a runner. */
  private async payload(kickoff: AgentKickoffsTable, target: Target) {
    const { q } = this.deps.db
    const card = (await getCard(q, kickoff.card_id))!
    const workflow = kickoff.workflow_id ? await getWorkflow(q, kickoff.workflow_id) : undefined
    return {
      kickoff: (await kickoffViews(q, [(await getKickoff(q, kickoff.id))!]))[0],
      run: kickoff.run_id,
      card: { id: card.id, key: card.key, title: card.title, url: cardUrl(this.deps.config, card.id), description: card.description },
      agent: { id: kickoff.agent_id, name: (await getUser(q, kickoff.agent_id))?.name ?? '' },
      workflow: workflow ? { id: workflow.id, name: workflow.name } : null,
      step: kickoff.step === null ? null : { index: kickoff.step, name: kickoff.step_name ?? '' },
      message: kickoff.message,
      model: kickoff.model,
      effort: kickoff.effort,
      instructions: target.step?.instructions ?? null,
    }
  }

  /** One AI turn as the agent: the reply becomes the agent's comment and its done proposal. */
  private async serviceAi(kickoff: AgentKickoffsTable, target: Target): Promise<void> {
    const { deps } = this
    const { q } = deps.db
    const agent = (await getUser(q, kickoff.agent_id))!
    const card = (await getCard(q, kickoff.card_id))!
    const checklists = await checklistsOfCards(q, [card.id])
    const items = await itemsOfChecklists(
      q,
      checklists.map((c) => c.id),
    )
    const comments = (await commentsOfCard(q, card.id)).slice(-RECENT_COMMENTS)
    const context = [
      `Task ${card.key}: ${card.title}`,
      card.description ? `Description:\n${card.description}` : 'No description.',
      ...checklists.map(
        (c) =>
          `Checklist "${c.title}":\n${items
            .filter((i) => i.checklist_id === c.id)
            .map((i) => `- [${i.completed ? 'x' : ' '}] ${i.text}`)
            .join('\n')}`,
      ),
      comments.length
        ? `Recent comments:\n${comments.map((c) => `${fromJsonColumn(CommentAuthor, c.author).name}: ${c.body}`).join('\n\n')}`
        : 'No comments yet.',
      kickoff.message ? `Message from ${fromJsonColumn(KickoffSchema.shape.requested_by, kickoff.requested_by).name}:\n${kickoff.message}` : '',
    ].filter(Boolean)
    const system = [
      `You are ${agent.name}, an AI agent working on a task in taskd. Answer with the result of your work, in Markdown.`,
      target.step?.instructions ?? '',
    ]
    const reply = await aiTurn(
      deps,
      [
        { role: 'system', content: system.filter(Boolean).join('\n\n') },
        { role: 'user', content: context.join('\n\n') },
      ],
      this.opts.dispatcher,
    )
    const actor = agentFor(agent, kickoff)
    await deps.db.tx(async (tx) => {
      if (!(await deliverIn(deps, tx, actor, kickoff, 'service_ai'))) return
      await createCommentIn(deps, tx, actor, { card: card.id, body: replyAsComment(reply) })
      const run = (await lockRun(tx.q, kickoff.run_id))!
      if (run.status === 'pending' || run.status === 'running') {
        const summary = reply.slice(0, SUMMARY_CHARS)
        const at = isoAt(deps.clock.now())
        await moveRun(deps, tx, actor, run, {
          status: 'done_proposed',
          set: { summary, last_activity_at: at },
          activity: { type: 'done_proposed', text: summary },
          event: 'agent.done_proposed',
          fields: { summary },
        })
      }
    })
  }
}

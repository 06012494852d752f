// The 12 agent events : they carry the agent as { id, name }, the run status and the task it belongs to.
import { z } from 'zod'
import { ACTOR, BOARD, CARD_REF, described, ref, str, defineEvents, type PayloadsOf } from '../../events/fields.js'

const AGENT = ref('agent')
const RUN = described(z.object({ id: z.string(), status: z.string() }), '{ id, status } of the agent run, its status after the change')
const base = <E extends z.ZodRawShape>(extra: E) => z.object({ agent: AGENT, run: RUN, card: CARD_REF, board: BOARD, ...extra, actor: ACTOR })

export const AGENT_EVENTS = defineEvents({
  'agent.kickoff_delivered': {
    summary: 'A kickoff was delivered to an agent.',
    data: base({ kickoff_id: str('Kickoff id'), via: str('How it was delivered: auto_start, local_access or service_ai') }),
  },
  'agent.kickoff_expired': {
    summary: 'A kickoff expired before anything picked it up.',
    data: base({ kickoff_id: str('Kickoff id'), expired_at: str('ISO 8601') }),
  },
  'agent.handoff': {
    summary: "A workflow step became another agent's turn.",
    data: base({ from_agent: ref('agent handing over'), step: str('Workflow step now running'), kickoff_id: str('The new kickoff') }),
  },
  'agent.needs_input': {
    summary: 'A run is waiting for an answer.',
    data: base({ question: str('What the agent needs to know'), question_id: str('Question id') }),
  },
  'agent.blocked': { summary: 'A run is blocked.', data: base({ reason: str('Why the run is blocked') }) },
  'agent.stalled': { summary: 'A run went quiet and was flagged.', data: base({ last_activity_at: str('Last sign of life, ISO 8601') }) },
  'agent.done_proposed': { summary: 'An agent proposed a task as done.', data: base({ summary: str('What the agent says it did') }) },
  'agent.approved': { summary: "A person approved an agent's done proposal.", data: base({ approved_by: ref('person who approved') }) },
  'agent.returned': {
    summary: "A person returned an agent's done proposal with feedback.",
    data: base({ returned_by: ref('person who returned it'), feedback: str('Feedback given') }),
  },
  'agent.completed': { summary: 'An agent run completed.', data: base({}) },
  'agent.failed': { summary: 'An agent run failed.', data: base({ error: str('Why the run failed') }) },
  'agent.cancelled': { summary: 'An agent run was cancelled.', data: base({ cancelled_by: ref('person who cancelled') }) },
})

declare module '../../events/fields.js' {
  interface EventPayloads extends PayloadsOf<typeof AGENT_EVENTS> {}
}

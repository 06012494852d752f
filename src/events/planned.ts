// Events of the catalog whose families are not built yet (questions, agents, audit).
// They are listed with `available: false`; each moves to its family's events.ts when that family lands.
import { z } from 'zod'
import type { EventDefs } from './fields.js'
import type { EventName } from './names.js'

type F = [name: string, type: string, description: string]

const ref = (name: string, what: string): F => [name, 'object', `{ id, name } of the ${what}`]
const CARD_REF: F = ['card', 'object', '{ id, key, title, url } of the task: record id, human key, title and a link to the task']
const BOARD: F = ref('board', 'board')
const ACTOR: F = ref('actor', 'user or agent who caused the event')

// SPEC: agent events carry the agent as { id, name }, the run status and the task it belongs to.
const AGENT: F[] = [ref('agent', 'agent'), ['run', 'object', '{ id, status } of the agent run'], CARD_REF, BOARD]

const ZOD: Record<string, () => z.ZodType> = {
  string: () => z.string(),
  number: () => z.number(),
  boolean: () => z.boolean(),
  array: () => z.array(z.unknown()),
  object: () => z.object({}),
  'string|null': () => z.string().nullable(),
  'object|null': () => z.object({}).nullable(),
}
const planned = (summary: string, fields: F[]) => ({
  summary,
  data: z.object(Object.fromEntries(fields.map(([name, type, description]) => [name, ZOD[type]().meta({ description })]))),
})

const catalog: Partial<Record<EventName, [summary: string, fields: F[]]>> = {
  'list.created': [
    'A list was added to a board.',
    [
      ['id', 'string', 'List id'],
      ['name', 'string', 'List name'],
      ['category', 'string', 'backlog, unstarted, started, completed or canceled'],
      ['position', 'number', 'Order within the board'],
      BOARD,
      ACTOR,
    ],
  ],
  'list.deleted': [
    'A list was deleted.',
    [
      ['id', 'string', 'List id'],
      ['name', 'string', 'List name'],
      ['category', 'string', 'List category'],
      ['position', 'number', 'Order it had within the board'],
      BOARD,
      ACTOR,
    ],
  ],
  'board.member_added': ['A user became a member of a board.', [BOARD, ['user', 'object', '{ id, name, kind } of the member; kind is human or agent'], ACTOR]],
  'board.member_removed': ['A user stopped being a member of a board.', [BOARD, ['user', 'object', '{ id, name, kind } of the former member'], ACTOR]],
  'tag.created': [
    'A tag was created on a board.',
    [['id', 'string', 'Tag id'], ['name', 'string', 'Tag name'], ['color', 'string|null', 'Tag colour'], BOARD, ACTOR],
  ],
  'tag.deleted': ['A tag was deleted.', [['id', 'string', 'Tag id'], ['name', 'string', 'Tag name'], ['color', 'string|null', 'Tag colour'], BOARD, ACTOR]],
  'question.asked': [
    'A question was asked on a task and awaits an answer.',
    [['id', 'string', 'Question id'], ['question', 'string', 'Question text'], ref('asked_by', 'user or agent who asked'), CARD_REF, BOARD],
  ],
  'question.answered': [
    'A question was answered or dismissed.',
    [
      ['id', 'string', 'Question id'],
      ['question', 'string', 'Question text'],
      ['answer', 'string|null', 'Answer text; null when dismissed'],
      ['dismissed', 'boolean', 'True when the question was dismissed (which also counts as answered)'],
      ref('answered_by', 'user who answered'),
      CARD_REF,
      BOARD,
    ],
  ],
  'agent.kickoff_delivered': ['A kickoff was delivered to an agent.', [...AGENT, ['kickoff_id', 'string', 'Kickoff id']]],
  'agent.kickoff_expired': [
    'A kickoff expired before anything picked it up.',
    [...AGENT, ['kickoff_id', 'string', 'Kickoff id'], ['expired_at', 'string', 'ISO 8601']],
  ],
  'agent.handoff': [
    "A workflow step became another agent's turn.",
    [...AGENT, ref('from_agent', 'agent handing over'), ['step', 'string', 'Workflow step now running']],
  ],
  'agent.needs_input': ['A run is waiting for an answer.', [...AGENT, ['question', 'string', 'What the agent needs to know']]],
  'agent.blocked': ['A run is blocked.', [...AGENT, ['reason', 'string', 'Why the run is blocked']]],
  'agent.stalled': ['A run went quiet and was flagged.', [...AGENT, ['last_activity_at', 'string', 'Last sign of life, ISO 8601']]],
  'agent.done_proposed': ['An agent proposed a task as done.', [...AGENT, ['summary', 'string', 'What the agent says it did']]],
  'agent.approved': ["A person approved an agent's done proposal.", [...AGENT, ref('approved_by', 'person who approved')]],
  'agent.returned': [
    "A person returned an agent's done proposal with feedback.",
    [...AGENT, ref('returned_by', 'person who returned it'), ['feedback', 'string', 'Feedback given']],
  ],
  'agent.completed': ['An agent run completed.', AGENT],
  'agent.failed': ['An agent run failed.', [...AGENT, ['error', 'string', 'Why the run failed']]],
  'agent.cancelled': ['An agent run was cancelled.', [...AGENT, ref('cancelled_by', 'person who cancelled')]],
  'audit.entry': [
    'An entry was written to the audit log.',
    [
      ['id', 'string', 'Audit entry id'],
      ['action', 'string', 'What was done, e.g. token.created'],
      ['actor', 'object', '{ id, name, kind } of who did it'],
      ['target', 'object', '{ type, id } of the record acted on'],
      ['board', 'object|null', '{ id, name } of the board, when the action concerns one'],
      ['at', 'string', 'When, ISO 8601'],
    ],
  ],
}

export const PLANNED_EVENTS: EventDefs = Object.fromEntries(Object.entries(catalog).map(([name, [summary, fields]]) => [name, planned(summary, fields)]))

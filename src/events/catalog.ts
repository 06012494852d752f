// The event catalog (API-DECISIONS §6): every event name, its family, a summary and the fields its `data` carries, plus subscription selectors.

export interface EventField {
  name: string;
  type: string;
  description: string;
}

export interface EventCatalogEntry {
  event: EventName;
  family: EventFamily;
  summary: string;
  fields: EventField[];
}

export const EVENT_NAMES = [
  'card.created', 'card.updated', 'card.deleted', 'card.completed', 'card.reopened', 'card.assigned', 'card.unassigned', 'card.moved',
  'comment.added', 'comment.deleted',
  'checklist.item_completed', 'checklist.item_uncompleted',
  'list.created', 'list.deleted',
  'board.member_added', 'board.member_removed',
  'tag.created', 'tag.deleted',
  'timer.started', 'timer.stopped',
  'question.asked', 'question.answered',
  'agent.kickoff_delivered', 'agent.kickoff_expired', 'agent.handoff', 'agent.needs_input', 'agent.blocked', 'agent.stalled',
  'agent.done_proposed', 'agent.approved', 'agent.returned', 'agent.completed', 'agent.failed', 'agent.cancelled',
  'audit.entry',
  'webhook.test',
] as const;

export type EventName = (typeof EVENT_NAMES)[number];

// A family id is the event's prefix before the dot, so `<family>.*` selectors need no lookup table.
export const EVENT_FAMILIES = ['card', 'comment', 'checklist', 'list', 'board', 'tag', 'timer', 'question', 'agent', 'audit', 'webhook'] as const;
export type EventFamily = (typeof EVENT_FAMILIES)[number];

type F = [name: string, type: string, description: string];

const ref = (name: string, what: string): F => [name, 'object', `{ id, name } of the ${what}`];
const CARD_REF: F = ['card', 'object', '{ id, key, title, url } of the task: record id, human key, title and a link to the task'];
const BOARD: F = ref('board', 'board');

// SPEC "Enrichment of data": task events carry names and links beside the raw ids.
const TASK: F[] = [
  ['id', 'string', 'Task record id'],
  ['key', 'string', 'Human key, `<PREFIX>-<n>`'],
  ['title', 'string', 'Task title'],
  ['url', 'string', 'Link to the task'],
  BOARD,
  ['list', 'object', '{ id, name, category } of the list holding the task; category is its flow state'],
  ['assignees', 'array', 'Assigned members, each { id, name }'],
  ['watchers', 'array', 'Watchers, each { id, name }'],
  ['tags', 'array', 'Tags, each { id, name }'],
  ['priority', 'number', 'Priority, 0 (none) to 4 (urgent)'],
  ['priority_name', 'string', 'Priority name: none, low, medium, high or urgent'],
  ['start_date', 'string|null', 'Start date, YYYY-MM-DD or ISO 8601'],
  ['due_date', 'string|null', 'Due date, YYYY-MM-DD or ISO 8601'],
  ['completed', 'boolean', 'Whether the task is completed'],
  ['completed_at', 'string|null', 'When it was completed, ISO 8601'],
  ['archived', 'boolean', 'Whether the task is archived'],
  ['trashed', 'boolean', 'Whether the task is in the trash'],
  ['position', 'number', 'Order within its list'],
  ['description_excerpt', 'string', 'First part of the Markdown description'],
  ['created', 'string', 'When the task was created, ISO 8601'],
  ['updated', 'string', 'When the task last changed, ISO 8601'],
  ['created_by', 'object|null', '{ id, name } of the user who created the task'],
];

const ACTOR: F = ref('actor', 'user or agent who caused the event');

// SPEC: agent events carry the agent as { id, name }, the run status and the task it belongs to.
const AGENT: F[] = [
  ref('agent', 'agent'),
  ['run', 'object', '{ id, status } of the agent run'],
  CARD_REF,
  BOARD,
];

const catalog: Record<EventName, [summary: string, fields: F[]]> = {
  'card.created': ['A task was created.', [...TASK, ACTOR]],
  'card.updated': ['Fields of a task changed.', [...TASK, ['changes', 'array', 'Names of the fields that changed, e.g. ["title", "due_date"]'], ACTOR]],
  'card.deleted': ['A task was deleted or moved to the trash.', [...TASK, ['permanent', 'boolean', 'True when deleted for good, false when moved to the trash'], ACTOR]],
  'card.completed': ['A task was marked completed.', [...TASK, ACTOR]],
  'card.reopened': ['A completed task was reopened.', [...TASK, ACTOR]],
  'card.assigned': ['A member was assigned to a task.', [...TASK, ref('user', 'member assigned'), ACTOR]],
  'card.unassigned': ['A member was removed from a task.', [...TASK, ref('user', 'member unassigned'), ACTOR]],
  'card.moved': ['A task moved to another list or board.', [
    ...TASK,
    ref('from_list', 'list the task left'),
    ref('to_list', 'list the task entered'),
    ref('from_board', 'board the task left (differs from board on a cross-board move)'),
    ACTOR,
  ]],
  'comment.added': ['A comment was added to a task.', [
    ['id', 'string', 'Comment id'], ['body', 'string', 'Comment text (Markdown)'], ref('author', 'comment author'),
    ['created', 'string', 'When it was written, ISO 8601'], CARD_REF, BOARD,
  ]],
  'comment.deleted': ['A comment was deleted.', [['id', 'string', 'Comment id'], ref('author', 'comment author'), CARD_REF, BOARD, ACTOR]],
  'checklist.item_completed': ['A checklist item was ticked.', [
    ['id', 'string', 'Checklist item id'], ['text', 'string', 'Item text'], ref('checklist', 'checklist'), CARD_REF, BOARD, ACTOR,
  ]],
  'checklist.item_uncompleted': ['A ticked checklist item was unticked.', [
    ['id', 'string', 'Checklist item id'], ['text', 'string', 'Item text'], ref('checklist', 'checklist'), CARD_REF, BOARD, ACTOR,
  ]],
  'list.created': ['A list was added to a board.', [
    ['id', 'string', 'List id'], ['name', 'string', 'List name'],
    ['category', 'string', 'backlog, unstarted, started, completed or canceled'], ['position', 'number', 'Order within the board'], BOARD, ACTOR,
  ]],
  'list.deleted': ['A list was deleted.', [
    ['id', 'string', 'List id'], ['name', 'string', 'List name'], ['category', 'string', 'List category'], ['position', 'number', 'Order it had within the board'], BOARD, ACTOR,
  ]],
  'board.member_added': ['A user became a member of a board.', [BOARD, ['user', 'object', '{ id, name, kind } of the member; kind is human or agent'], ACTOR]],
  'board.member_removed': ['A user stopped being a member of a board.', [BOARD, ['user', 'object', '{ id, name, kind } of the former member'], ACTOR]],
  'tag.created': ['A tag was created on a board.', [['id', 'string', 'Tag id'], ['name', 'string', 'Tag name'], ['color', 'string|null', 'Tag colour'], BOARD, ACTOR]],
  'tag.deleted': ['A tag was deleted.', [['id', 'string', 'Tag id'], ['name', 'string', 'Tag name'], ['color', 'string|null', 'Tag colour'], BOARD, ACTOR]],
  'timer.started': ['A time-tracking timer started on a task.', [
    ['id', 'string', 'Time entry id'], ref('user', 'user tracking time'), ['started_at', 'string', 'Start, ISO 8601'], CARD_REF, BOARD,
  ]],
  'timer.stopped': ['A running timer stopped.', [
    ['id', 'string', 'Time entry id'], ref('user', 'user tracking time'), ['started_at', 'string', 'Start, ISO 8601'],
    ['stopped_at', 'string', 'Stop, ISO 8601'], ['duration_seconds', 'number', 'Tracked time in seconds'], CARD_REF, BOARD,
  ]],
  'question.asked': ['A question was asked on a task and awaits an answer.', [
    ['id', 'string', 'Question id'], ['question', 'string', 'Question text'], ref('asked_by', 'user or agent who asked'), CARD_REF, BOARD,
  ]],
  'question.answered': ['A question was answered or dismissed.', [
    ['id', 'string', 'Question id'], ['question', 'string', 'Question text'], ['answer', 'string|null', 'Answer text; null when dismissed'],
    ['dismissed', 'boolean', 'True when the question was dismissed (which also counts as answered)'], ref('answered_by', 'user who answered'), CARD_REF, BOARD,
  ]],
  'agent.kickoff_delivered': ['A kickoff was delivered to an agent.', [...AGENT, ['kickoff_id', 'string', 'Kickoff id']]],
  'agent.kickoff_expired': ['A kickoff expired before anything picked it up.', [...AGENT, ['kickoff_id', 'string', 'Kickoff id'], ['expired_at', 'string', 'ISO 8601']]],
  'agent.handoff': ['A workflow step became another agent\'s turn.', [...AGENT, ref('from_agent', 'agent handing over'), ['step', 'string', 'Workflow step now running']]],
  'agent.needs_input': ['A run is waiting for an answer.', [...AGENT, ['question', 'string', 'What the agent needs to know']]],
  'agent.blocked': ['A run is blocked.', [...AGENT, ['reason', 'string', 'Why the run is blocked']]],
  'agent.stalled': ['A run went quiet and was flagged.', [...AGENT, ['last_activity_at', 'string', 'Last sign of life, ISO 8601']]],
  'agent.done_proposed': ['An agent proposed a task as done.', [...AGENT, ['summary', 'string', 'What the agent says it did']]],
  'agent.approved': ['A person approved an agent\'s done proposal.', [...AGENT, ref('approved_by', 'person who approved')]],
  'agent.returned': ['A person returned an agent\'s done proposal with feedback.', [...AGENT, ref('returned_by', 'person who returned it'), ['feedback', 'string', 'Feedback given']]],
  'agent.completed': ['An agent run completed.', AGENT],
  'agent.failed': ['An agent run failed.', [...AGENT, ['error', 'string', 'Why the run failed']]],
  'agent.cancelled': ['An agent run was cancelled.', [...AGENT, ref('cancelled_by', 'person who cancelled')]],
  'audit.entry': ['An entry was written to the audit log.', [
    ['id', 'string', 'Audit entry id'], ['action', 'string', 'What was done, e.g. token.created'],
    ['actor', 'object', '{ id, name, kind } of who did it'], ['target', 'object', '{ type, id } of the record acted on'],
    ['board', 'object|null', '{ id, name } of the board, when the action concerns one'], ['at', 'string', 'When, ISO 8601'],
  ]],
  'webhook.test': ['A test delivery sent by the send-test action; never emitted by real activity.', [
    ref('webhook', 'subscription being tested'), ['message', 'string', 'Fixed text saying this is a test'], ref('triggered_by', 'user who sent the test'),
  ]],
};

const familyOf = (event: string): string => event.slice(0, event.indexOf('.'));

export const EVENT_CATALOG: readonly EventCatalogEntry[] = EVENT_NAMES.map((event) => ({
  event,
  family: familyOf(event) as EventFamily,
  summary: catalog[event][0],
  fields: catalog[event][1].map(([name, type, description]) => ({ name, type, description })),
}));

const nameSet: ReadonlySet<string> = new Set(EVENT_NAMES);
const familySet: ReadonlySet<string> = new Set(EVENT_FAMILIES);

export function isEventName(name: string): name is EventName {
  return nameSet.has(name);
}

/** Events a subscription can receive from real activity: `webhook.test` is sent only by the test action, so `*` leaves it out. */
export const SUBSCRIBABLE_EVENT_NAMES: readonly EventName[] = EVENT_NAMES.filter((e) => e !== 'webhook.test');

/** Expands event selectors (an event name, `<family>.*` or `*`) into event names; the first
 *  unknown entry is returned as `invalid:<entry>` so the API can name it in its 422. */
export function expandEventSelectors(selectors: string[]): Set<string> | `invalid:${string}` {
  const out = new Set<string>();
  for (const sel of selectors) {
    if (sel === '*') {
      for (const e of SUBSCRIBABLE_EVENT_NAMES) out.add(e);
    } else if (sel.endsWith('.*') && familySet.has(sel.slice(0, -2))) {
      const family = sel.slice(0, -2);
      for (const e of EVENT_NAMES) if (familyOf(e) === family) out.add(e);
    } else if (isEventName(sel)) {
      out.add(sel);
    } else {
      return `invalid:${sel}`;
    }
  }
  return out;
}

/** Whether a subscription with these selectors receives `eventName`; unknown selectors never match. */
export function matchesSelectors(selectors: readonly string[], eventName: string): boolean {
  if (!isEventName(eventName)) return false;
  return selectors.some(
    (sel) => sel === eventName || (sel === '*' && eventName !== 'webhook.test') || (sel.endsWith('.*') && sel.slice(0, -2) === familyOf(eventName)),
  );
}

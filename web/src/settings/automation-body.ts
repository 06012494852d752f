// The automation form's state and the API body it makes (no DOM: the browser tests and the logic tests use it alike).
// The form covers a trigger (an event with an optional card filter, a schedule, an incoming endpoint) and steps of the
// common kinds; anything else (update_card, headers, signing secrets, ...) is written as JSON, which the form can start.
import type { Schemas } from '../api/client'

export type TriggerType = 'event' | 'schedule' | 'incoming_webhook'
export type ActionType = 'create_card' | 'move_card' | 'complete_card' | 'add_comment' | 'kickoff_agent' | 'http_request'

/** What each action asks for, and the names the form shows. */
export const ACTIONS: { type: ActionType; label: string }[] = [
  { type: 'add_comment', label: 'Add a comment' },
  { type: 'move_card', label: 'Move the card' },
  { type: 'complete_card', label: 'Complete the card' },
  { type: 'create_card', label: 'Create a card' },
  { type: 'kickoff_agent', label: 'Start an agent on the card' },
  { type: 'http_request', label: 'Send an HTTP request' },
]

export interface ActionDraft {
  type: ActionType
  /** The card acted on (a placeholder such as {event.data.id} as a rule). */
  card: string
  /** create_card: the new card's title. */
  title: string
  /** create_card, move_card: a list id. */
  list: string
  /** add_comment: the comment; create_card: the description; kickoff_agent: the message; http_request: the body. */
  text: string
  /** kickoff_agent: an agent id ('' for the board's default workflow). */
  agent: string
  method: string
  url: string
}

export interface AutomationDraft {
  name: string
  board: string
  trigger: TriggerType
  /** Comma-separated event names or selectors (card.*, *). */
  events: string
  /** A card filter in the filter grammar ('' for none). */
  filter: string
  cron: string
  timezone: string
  endpoint: string
  actions: ActionDraft[]
}

/** The card a step acts on, by default: the event's card, or the card a first create_card step made. */
export const defaultCard = (trigger: TriggerType): string => (trigger === 'event' ? '{event.data.id}' : '{steps.1.card.id}')

export function newAction(type: ActionType, trigger: TriggerType): ActionDraft {
  return { type, card: defaultCard(trigger), title: '', list: '', text: '', agent: '', method: 'POST', url: '' }
}

export function newDraft(board: string): AutomationDraft {
  return {
    name: '',
    board,
    trigger: 'event',
    events: 'card.completed',
    filter: '',
    cron: '0 9 * * 1',
    timezone: 'UTC',
    endpoint: '',
    actions: [newAction('add_comment', 'event')],
  }
}

const given = <K extends string>(key: K, value: string): Partial<Record<K, string>> => (value.trim() ? ({ [key]: value.trim() } as Record<K, string>) : {})

type Trigger = Schemas['AutomationTrigger']
type Step = Schemas['AutomationStep']

export function triggerBody(d: AutomationDraft): Trigger {
  if (d.trigger === 'schedule') return { type: 'schedule', cron: d.cron.trim(), ...given('timezone', d.timezone) }
  if (d.trigger === 'incoming_webhook') return { type: 'incoming_webhook', endpoint: d.endpoint }
  return {
    type: 'event',
    events: d.events
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    ...given('filter', d.filter),
  }
}

/** A step as the API takes it; a required field left empty is sent empty, so the API's answer names it. */
export function stepBody(a: ActionDraft): Step {
  const card = a.card.trim()
  switch (a.type) {
    case 'create_card':
      return { type: 'create_card', title: a.title, ...given('list', a.list), ...given('description', a.text) }
    case 'move_card':
      return { type: 'move_card', card, list: a.list }
    case 'complete_card':
      return { type: 'complete_card', card }
    case 'add_comment':
      return { type: 'add_comment', card, body: a.text }
    case 'kickoff_agent':
      return { type: 'kickoff_agent', card, ...given('agent', a.agent), ...given('message', a.text) }
    case 'http_request':
      return { type: 'http_request', method: a.method as 'POST', url: a.url.trim(), ...given('body', a.text) }
  }
}

export function automationBody(d: AutomationDraft): Schemas['CreateAutomationBody'] {
  return { name: d.name.trim(), board: d.board, trigger: triggerBody(d), steps: d.actions.map(stepBody) }
}

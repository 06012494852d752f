// A new automation as a form: its name and board, a trigger (events with an optional card filter, a schedule, or an
// incoming endpoint) and one or more actions of the common kinds. What the form does not cover (update_card, headers,
// signing secrets, timeouts, ...) is written as JSON below it, which "Copy the form as JSON" starts from the form.
import { useEffect, useState } from 'preact/hooks'
import { api, ok, type Schemas } from '../api/client'
import { isAdmin } from '../store/session'
import { toast, toastError } from '../store/toast'
import { ACTIONS, automationBody, defaultCard, newAction, newDraft, type ActionDraft, type ActionType, type AutomationDraft } from './automation-body'

interface Named {
  id: string
  name: string
}

const TRIGGERS: [AutomationDraft['trigger'], string][] = [
  ['event', 'Something happens on the board'],
  ['schedule', 'On a schedule'],
  ['incoming_webhook', 'An incoming endpoint is called'],
]
const METHODS = ['POST', 'PUT', 'PATCH', 'GET', 'DELETE']

export function AutomationForm(props: { boards: Named[]; created: () => void }) {
  const [draft, setDraft] = useState<AutomationDraft>(() => newDraft(props.boards[0]?.id ?? ''))
  const [lists, setLists] = useState<Named[]>([])
  const [agents, setAgents] = useState<Named[]>([])
  const [endpoints, setEndpoints] = useState<Named[]>([])
  const [json, setJson] = useState('')
  const [jsonOpen, setJsonOpen] = useState(false)
  const set = (patch: Partial<AutomationDraft>) => setDraft((d) => ({ ...d, ...patch }))
  const setAction = (i: number, patch: Partial<ActionDraft>) =>
    setDraft((d) => ({ ...d, actions: d.actions.map((a, j) => (j === i ? { ...a, ...patch } : a)) }))

  // The boards arrive after the form is made: the first is chosen then.
  useEffect(() => {
    if (!draft.board && props.boards[0]) set({ board: props.boards[0].id })
  }, [props.boards])
  useEffect(() => {
    if (!draft.board) return setLists([])
    ok(api.GET('/v1/lists', { params: { query: { board: draft.board, per_page: 500, sort: 'position' } } })).then((r) => setLists(r.items), toastError)
  }, [draft.board])
  useEffect(() => {
    ok(api.GET('/v1/users', { params: { query: { per_page: 500, filter: 'kind = "agent"' } } })).then((r) => setAgents(r.items), toastError)
    if (isAdmin()) ok(api.GET('/v1/webhooks/incoming', { params: { query: { per_page: 200 } } })).then((r) => setEndpoints(r.items), toastError)
  }, [])

  const post = async (body: Schemas['CreateAutomationBody']) => {
    await ok(api.POST('/v1/automations', { body }))
    toast(`Automation “${body.name}” created.`)
    props.created()
  }
  const submitForm = (e: Event) => {
    e.preventDefault()
    post(automationBody(draft)).then(() => setDraft(newDraft(draft.board)), toastError)
  }
  const submitJson = (e: Event) => {
    e.preventDefault()
    let body: Schemas['CreateAutomationBody']
    try {
      body = JSON.parse(json) as Schemas['CreateAutomationBody']
    } catch {
      return toast('The automation is not valid JSON.', 'error')
    }
    post(body).then(() => setJson(''), toastError)
  }
  const changeTrigger = (trigger: AutomationDraft['trigger']) =>
    // Actions still on the old trigger's default card follow the new trigger's.
    setDraft((d) => ({
      ...d,
      trigger,
      actions: d.actions.map((a) => (a.card === defaultCard(d.trigger) ? { ...a, card: defaultCard(trigger) } : a)),
    }))

  return (
    <>
      <form class="automation-form stack" onSubmit={submitForm} aria-labelledby="new-automation-h">
        <h3 id="new-automation-h">New automation</h3>
        <label>
          Name
          <input name="name" required value={draft.name} onInput={(e) => set({ name: e.currentTarget.value })} />
        </label>
        <label>
          Board
          <select name="board" required value={draft.board} onChange={(e) => set({ board: e.currentTarget.value })}>
            {props.boards.map((b) => (
              <option key={b.id} value={b.id}>
                {b.name}
              </option>
            ))}
          </select>
        </label>
        <fieldset>
          <legend>When</legend>
          <label>
            Trigger
            <select name="trigger" value={draft.trigger} onChange={(e) => changeTrigger(e.currentTarget.value as AutomationDraft['trigger'])}>
              {TRIGGERS.map(([type, label]) => (
                <option key={type} value={type}>
                  {label}
                </option>
              ))}
            </select>
          </label>
          {draft.trigger === 'event' && (
            <>
              <label>
                Events (comma-separated: card.completed, comment.added, card.*)
                <input name="events" required value={draft.events} onInput={(e) => set({ events: e.currentTarget.value })} />
              </label>
              <label>
                Only for cards matching (a filter, optional)
                <input
                  name="filter"
                  class="mono"
                  placeholder='priority >= 3 && tags ~ "bug"'
                  value={draft.filter}
                  onInput={(e) => set({ filter: e.currentTarget.value })}
                />
              </label>
            </>
          )}
          {draft.trigger === 'schedule' && (
            <div class="row">
              <label>
                Cron (minute hour day month weekday)
                <input name="cron" class="mono" required value={draft.cron} onInput={(e) => set({ cron: e.currentTarget.value })} />
              </label>
              <label>
                Time zone
                <input name="timezone" value={draft.timezone} onInput={(e) => set({ timezone: e.currentTarget.value })} />
              </label>
            </div>
          )}
          {draft.trigger === 'incoming_webhook' && (
            <label>
              Endpoint
              <select name="endpoint" required value={draft.endpoint} onChange={(e) => set({ endpoint: e.currentTarget.value })}>
                <option value="">Choose an endpoint…</option>
                {endpoints.map((w) => (
                  <option key={w.id} value={w.id}>
                    {w.name}
                  </option>
                ))}
              </select>
            </label>
          )}
        </fieldset>
        {draft.actions.map((a, i) => (
          <Action
            key={i}
            index={i}
            action={a}
            lists={lists}
            agents={agents}
            set={(patch) => setAction(i, patch)}
            remove={draft.actions.length > 1 ? () => set({ actions: draft.actions.filter((_, j) => j !== i) }) : undefined}
          />
        ))}
        <div class="row">
          <button type="button" onClick={() => set({ actions: [...draft.actions, newAction('add_comment', draft.trigger)] })}>
            Add an action
          </button>
          <button type="submit" class="primary">
            Create automation
          </button>
        </div>
        <p class="muted small">
          Any text may hold placeholders: <code>{'{event.data.title}'}</code>, <code>{'{webhook.body.field}'}</code>, <code>{'{steps.1.card.id}'}</code>,{' '}
          <code>{'{now}'}</code> (the API reference at <a href="/v1/docs/">/v1/docs</a> lists them all).
        </p>
      </form>
      <details class="automation-json" open={jsonOpen} onToggle={(e) => setJsonOpen(e.currentTarget.open)}>
        <summary>Write it as JSON (card updates, headers, signing secrets, and anything else the form leaves out)</summary>
        <form class="stack" onSubmit={submitJson}>
          <div class="row">
            <button type="button" class="link small" onClick={() => setJson(JSON.stringify(automationBody(draft), null, 2))}>
              Copy the form as JSON
            </button>
          </div>
          <label>
            Automation JSON
            <textarea id="automation-json" class="mono" rows={10} value={json} onInput={(e) => setJson(e.currentTarget.value)} />
          </label>
          <button type="submit">Create from JSON</button>
        </form>
      </details>
    </>
  )
}

function Action(props: {
  index: number
  action: ActionDraft
  lists: Named[]
  agents: Named[]
  set: (patch: Partial<ActionDraft>) => void
  remove?: () => void
}) {
  const { action: a, set } = props
  const n = props.index + 1
  const onCard = a.type !== 'create_card' && a.type !== 'http_request'
  const listSelect = (required: boolean) => (
    <label>
      List
      <select name={`list-${n}`} required={required} value={a.list} onChange={(e) => set({ list: e.currentTarget.value })}>
        <option value="">{required ? 'Choose a list…' : 'The first list'}</option>
        {props.lists.map((l) => (
          <option key={l.id} value={l.id}>
            {l.name}
          </option>
        ))}
      </select>
    </label>
  )
  return (
    <fieldset class="automation-action">
      <legend>
        {n === 1 ? 'Then' : 'And then'} (action {n})
      </legend>
      <div class="row">
        <label>
          Action
          <select name={`action-${n}`} value={a.type} onChange={(e) => set({ type: e.currentTarget.value as ActionType })}>
            {ACTIONS.map((t) => (
              <option key={t.type} value={t.type}>
                {t.label}
              </option>
            ))}
          </select>
        </label>
        {props.remove && (
          <button type="button" class="link danger small" onClick={props.remove} aria-label={`Remove action ${n}`}>
            Remove
          </button>
        )}
      </div>
      {onCard && (
        <label>
          Card
          <input name={`card-${n}`} class="mono" required value={a.card} onInput={(e) => set({ card: e.currentTarget.value })} />
        </label>
      )}
      {a.type === 'create_card' && (
        <>
          <label>
            Title
            <input name={`title-${n}`} required value={a.title} onInput={(e) => set({ title: e.currentTarget.value })} />
          </label>
          {listSelect(false)}
        </>
      )}
      {a.type === 'move_card' && listSelect(true)}
      {a.type === 'kickoff_agent' && (
        <label>
          Agent
          <select name={`agent-${n}`} value={a.agent} onChange={(e) => set({ agent: e.currentTarget.value })}>
            <option value="">The board's default workflow</option>
            {props.agents.map((u) => (
              <option key={u.id} value={u.id}>
                {u.name}
              </option>
            ))}
          </select>
        </label>
      )}
      {a.type === 'http_request' && (
        <div class="row">
          <label>
            Method
            <select name={`method-${n}`} value={a.method} onChange={(e) => set({ method: e.currentTarget.value })}>
              {METHODS.map((m) => (
                <option key={m}>{m}</option>
              ))}
            </select>
          </label>
          <label class="grow">
            URL
            <input name={`url-${n}`} type="url" required value={a.url} onInput={(e) => set({ url: e.currentTarget.value })} />
          </label>
        </div>
      )}
      {a.type !== 'move_card' && a.type !== 'complete_card' && (
        <label>
          {a.type === 'add_comment'
            ? 'Comment'
            : a.type === 'create_card'
              ? 'Description (optional)'
              : a.type === 'kickoff_agent'
                ? 'Message (optional)'
                : 'Body (optional)'}
          <textarea name={`text-${n}`} rows={2} required={a.type === 'add_comment'} value={a.text} onInput={(e) => set({ text: e.currentTarget.value })} />
        </label>
      )}
    </fieldset>
  )
}

// Settings: your account (password, sessions), tokens, webhooks (with their delivery logs), incoming endpoints,
// automations (with their runs), agents and users. Each page reads and writes the same /v1 routes as any client.
import type { ComponentChildren, InputHTMLAttributes } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { api, ok, errorText, type Schemas } from '../api/client'
import { isAdmin, me } from '../store/session'
import { toast, toastError } from '../store/toast'
import { AutomationForm } from './automation-form'

const SECTIONS: [string, string][] = [
  ['account', 'Account'],
  ['tokens', 'API tokens'],
  ['webhooks', 'Webhooks'],
  ['incoming', 'Incoming endpoints'],
  ['automations', 'Automations'],
  ['agents', 'Agents'],
  ['users', 'Users'],
]

export function Settings({ section }: { section?: string }) {
  const at = section ?? 'account'
  return (
    <main class="page settings">
      <h1>Settings</h1>
      <div class="settings-layout">
        <nav class="settings-nav" aria-label="Settings">
          {SECTIONS.map(([id, name]) => (
            <a key={id} href={`/settings/${id}`} aria-current={at === id ? 'page' : undefined}>
              {name}
            </a>
          ))}
        </nav>
        <div class="settings-page">
          {at === 'account' && <Account />}
          {at === 'tokens' && <Tokens />}
          {at === 'webhooks' && <Webhooks />}
          {at === 'incoming' && <Incoming />}
          {at === 'automations' && <Automations />}
          {at === 'agents' && <Agents />}
          {at === 'users' && <Users />}
          {!SECTIONS.some(([id]) => id === at) && <p>No such settings page.</p>}
        </div>
      </div>
    </main>
  )
}

/** A page's items, loaded on mount and again by `reload`. */
function useLoad<T>(load: () => Promise<T>, deps: unknown[] = []): { data: T | null; error: string | null; reload: () => void } {
  const [data, setData] = useState<T | null>(null)
  const [error, setError] = useState<string | null>(null)
  const reload = () => {
    load().then(
      (d) => {
        setData(d)
        setError(null)
      },
      (err: unknown) => setError(errorText(err)),
    )
  }
  useEffect(reload, deps)
  return { data, error, reload }
}

function Section(props: { title: string; children: ComponentChildren; error?: string | null }) {
  return (
    <section aria-label={props.title}>
      <h2>{props.title}</h2>
      {props.error && <p class="error">{props.error}</p>}
      {props.children}
    </section>
  )
}

const date = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }) : '—')

/** A form's submit handler: the page stays, `fn` runs, and what it throws is shown as a toast. */
const submitting = (fn: () => Promise<unknown>) => (e: Event) => {
  e.preventDefault()
  fn().catch(toastError)
}

/** A labelled text input (any `type`) bound to a string state. */
function Field(props: {
  label: string
  value: string
  set: (value: string) => void
  type?: 'password' | 'url' | 'email' | 'date'
  required?: boolean
  placeholder?: string
  autocomplete?: 'current-password' | 'new-password'
  minLength?: number
}) {
  const { label, set, ...attrs } = props
  // Preact types an input's attributes by its type (a union of literal types); these suit every type Field takes.
  const input = attrs as InputHTMLAttributes<HTMLInputElement>
  return (
    <label>
      {label}
      <input {...input} onInput={(e) => set(e.currentTarget.value)} />
    </label>
  )
}

/** A button that looks like a link. */
function LinkButton(props: { onClick: () => unknown; danger?: boolean; small?: boolean; expanded?: boolean; children: ComponentChildren }) {
  return (
    <button
      type="button"
      class={`link${props.danger ? ' danger' : ''}${props.small ? ' small' : ''}`}
      aria-expanded={props.expanded}
      onClick={() => void props.onClick()}
    >
      {props.children}
    </button>
  )
}

/** A table with an optional header row; `children` are its rows. */
function Table(props: { head?: string[]; children: ComponentChildren }) {
  return (
    <table>
      {props.head && (
        <thead>
          <tr>
            {props.head.map((h, i) => (
              <th key={i}>{h}</th>
            ))}
          </tr>
        </thead>
      )}
      <tbody>{props.children}</tbody>
    </table>
  )
}

/**
 * Records (webhooks, endpoints, automations) as a list: each with its head, a button opening its log, its own actions
 * and Delete; `empty` when the list is loaded and has none.
 */
function Records<T extends { id: string }>(props: {
  items: T[] | undefined
  empty?: string
  head: (item: T) => ComponentChildren
  logLabel: string
  log: (id: string) => ComponentChildren
  actions?: (item: T) => ComponentChildren
  remove: (id: string) => unknown
}) {
  const [open, setOpen] = useState<string | null>(null)
  return (
    <>
      <ul class="records">
        {props.items?.map((item) => (
          <li key={item.id}>
            {props.head(item)}
            <div class="row">
              <LinkButton expanded={open === item.id} onClick={() => setOpen(open === item.id ? null : item.id)}>
                {props.logLabel}
              </LinkButton>
              {props.actions?.(item)}
              <LinkButton danger onClick={() => props.remove(item.id)}>
                Delete
              </LinkButton>
            </div>
            {open === item.id && props.log(item.id)}
          </li>
        ))}
      </ul>
      {props.empty && props.items?.length === 0 && <p class="muted">{props.empty}</p>}
    </>
  )
}

/** A record's log (deliveries, requests, runs) under it: `row` renders an entry; `refresh` adds a Refresh button. */
function Log<T extends { id: string }>(props: {
  log: { data: { items: T[] } | null; error: string | null; reload: () => void }
  empty: string
  row: (entry: T) => ComponentChildren
  refresh?: boolean
}) {
  const { data, error, reload } = props.log
  return (
    <div class="log">
      {props.refresh && (
        <LinkButton small onClick={reload}>
          Refresh
        </LinkButton>
      )}
      {error && <p class="error">{error}</p>}
      {data && data.items.length === 0 && <p class="muted small">{props.empty}</p>}
      <Table>
        {data?.items.map((entry) => (
          <tr key={entry.id}>{props.row(entry)}</tr>
        ))}
      </Table>
    </div>
  )
}

const ROLES = ['member', 'admin', 'owner'] as const
const roleOptions = () =>
  ROLES.map((r) => (
    <option key={r} value={r}>
      {r}
    </option>
  ))

function Account() {
  const [current, setCurrent] = useState('')
  const [next, setNext] = useState('')
  const sessions = useLoad(() => ok(api.GET('/v1/sessions', { params: { query: { per_page: 100 } } })))
  const change = submitting(async () => {
    await ok(api.PATCH('/v1/users/me', { body: { password: next, ...(current ? { current_password: current } : {}) } }))
    setCurrent('')
    setNext('')
    toast('Password changed. Your other sessions have ended.')
    sessions.reload()
  })
  const revoke = (id: string) => ok(api.DELETE('/v1/sessions/{id}', { params: { path: { id } } })).then(sessions.reload, toastError)
  return (
    <>
      <Section title="Your account">
        <p>
          {me.value?.name} &lt;{me.value?.email}&gt;, {me.value?.role}
        </p>
        <form class="stack" onSubmit={change}>
          <h3>Password</h3>
          <Field label="Current password (leave empty if you have none yet)" type="password" autocomplete="current-password" value={current} set={setCurrent} />
          <Field label="New password" type="password" autocomplete="new-password" required minLength={10} value={next} set={setNext} />
          <button type="submit">Set password</button>
        </form>
      </Section>
      <Section title="Signed-in browsers" error={sessions.error}>
        <Table head={['Browser', 'Signed in', 'Last used', '']}>
          {sessions.data?.items.map((s) => (
            <tr key={s.id}>
              <td class="clip">{s.user_agent ?? 'unknown'}</td>
              <td>{date(s.created)}</td>
              <td>{date(s.last_used)}</td>
              <td>{s.current ? <span class="muted small">this one</span> : <LinkButton onClick={() => revoke(s.id)}>Revoke</LinkButton>}</td>
            </tr>
          ))}
        </Table>
      </Section>
    </>
  )
}

function Tokens() {
  const list = useLoad(() => ok(api.GET('/v1/tokens', { params: { query: { per_page: 200 } } })))
  const [name, setName] = useState('')
  const [permission, setPermission] = useState<'read' | 'write' | 'full'>('write')
  const [expires, setExpires] = useState('')
  const [made, setMade] = useState<string | null>(null)
  const create = submitting(async () => {
    const r = await ok(api.POST('/v1/tokens', { body: { name, permission, ...(expires ? { expires_at: expires } : {}) } }))
    setMade(r.value)
    setName('')
    list.reload()
  })
  const revoke = (id: string) => ok(api.DELETE('/v1/tokens/{id}', { params: { path: { id } } })).then(list.reload, toastError)
  return (
    <Section title="API tokens" error={list.error}>
      <p class="muted">Tokens let scripts, n8n and agents use the API as you. The value is shown once.</p>
      <form class="inline-form wrap" onSubmit={create}>
        <Field label="Name" required value={name} set={setName} />
        <label>
          Permission
          <select value={permission} onChange={(e) => setPermission(e.currentTarget.value as typeof permission)}>
            <option value="read">Read only</option>
            <option value="write">Can edit</option>
            {isAdmin() && <option value="full">Full Access</option>}
          </select>
        </label>
        <Field label="Expires" type="date" value={expires} set={setExpires} />
        <button type="submit">Create token</button>
      </form>
      {made && (
        <p class="notice" role="status">
          New token (copy it now, it is not shown again): <code class="secret">{made}</code>
        </p>
      )}
      <Table head={['Name', 'Permission', 'Owner', 'Last used', 'Expires', '']}>
        {list.data?.items.map((t) => (
          <tr key={t.id}>
            <td>
              {t.name} <code class="muted">{t.prefix}…</code>
            </td>
            <td>{t.permission}</td>
            <td>{t.owner.name}</td>
            <td>{date(t.last_used_at)}</td>
            <td>{date(t.expires_at)}</td>
            <td>
              <LinkButton onClick={() => revoke(t.id)}>Revoke</LinkButton>
            </td>
          </tr>
        ))}
      </Table>
    </Section>
  )
}

function Webhooks() {
  const list = useLoad(() => ok(api.GET('/v1/webhooks', { params: { query: { per_page: 200 } } })))
  const [name, setName] = useState('')
  const [url, setUrl] = useState('')
  const [events, setEvents] = useState('card.*')
  const [secret, setSecret] = useState<string | null>(null)
  const create = submitting(async () => {
    const r = await ok(
      api.POST('/v1/webhooks', {
        body: {
          name,
          url,
          events: events
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean),
          generate_secret: true,
        },
      }),
    )
    setSecret(r.secret ?? null)
    setName('')
    setUrl('')
    list.reload()
  })
  const remove = (id: string) => ok(api.DELETE('/v1/webhooks/{id}', { params: { path: { id } } })).then(list.reload, toastError)
  const test = (id: string) => ok(api.POST('/v1/webhooks/{id}/test', { params: { path: { id } } })).then(() => toast('Test delivery queued.'), toastError)
  const toggle = (w: Schemas['Webhook']) =>
    ok(api.PATCH('/v1/webhooks/{id}', { params: { path: { id: w.id } }, body: { active: !w.active } })).then(list.reload, toastError)
  return (
    <Section title="Webhooks" error={list.error}>
      <p class="muted">Outgoing webhooks POST each chosen event to a URL, signed when they have a secret.</p>
      <form class="inline-form wrap" onSubmit={create}>
        <Field label="Name" required value={name} set={setName} />
        <Field label="URL" required type="url" placeholder="https://example.com/hook" value={url} set={setUrl} />
        <Field label="Events" required value={events} set={setEvents} />
        <button type="submit">Add webhook</button>
      </form>
      {secret && (
        <p class="notice" role="status">
          Signing secret (shown once): <code class="secret">{secret}</code>
        </p>
      )}
      <Records
        items={list.data?.items}
        empty="No webhooks yet."
        head={(w) => (
          <>
            <div class="record-head">
              <strong>{w.name}</strong> <code class="clip">{w.url}</code>
              <span class={`status ${w.active ? 's-completed' : 's-cancelled'}`}>{w.active ? 'active' : (w.paused_reason ?? 'paused')}</span>
            </div>
            <div class="muted small">
              {w.events.join(', ')} · last delivery: {w.last_delivery ? `${w.last_delivery.outcome} ${date(w.last_delivery.at)}` : 'none yet'}
            </div>
          </>
        )}
        logLabel="Delivery log"
        log={(id) => <WebhookLog id={id} />}
        actions={(w) => (
          <>
            <LinkButton onClick={() => test(w.id)}>Send test</LinkButton>
            <LinkButton onClick={() => toggle(w)}>{w.active ? 'Pause' : 'Resume'}</LinkButton>
          </>
        )}
        remove={remove}
      />
    </Section>
  )
}

function WebhookLog(props: { id: string }) {
  const log = useLoad(() => ok(api.GET('/v1/webhooks/{id}/logs', { params: { path: { id: props.id } } })), [props.id])
  return (
    <Log
      log={log}
      refresh
      empty="No deliveries yet."
      row={(d) => (
        <>
          <td>{date(d.at)}</td>
          <td>{d.event}</td>
          <td>#{d.attempt}</td>
          <td class={`s-${d.outcome}`}>{d.outcome}</td>
          <td>{d.status_code ?? d.error ?? ''}</td>
          <td>{d.duration_ms} ms</td>
        </>
      )}
    />
  )
}

function Incoming() {
  const list = useLoad(() => ok(api.GET('/v1/webhooks/incoming', { params: { query: { per_page: 200 } } })))
  const [name, setName] = useState('')
  const create = submitting(async () => {
    await ok(api.POST('/v1/webhooks/incoming', { body: { name } }))
    setName('')
    list.reload()
  })
  const remove = (id: string) => ok(api.DELETE('/v1/webhooks/incoming/{id}', { params: { path: { id } } })).then(list.reload, toastError)
  if (!isAdmin()) return <Section title="Incoming endpoints">{<p class="muted">Only owners and admins manage incoming endpoints.</p>}</Section>
  return (
    <Section title="Incoming endpoints" error={list.error}>
      <p class="muted">An incoming endpoint is a URL other services call; automations act on what arrives.</p>
      <form class="inline-form" onSubmit={create}>
        <Field label="Name" required value={name} set={setName} />
        <button type="submit">Add endpoint</button>
      </form>
      <Records
        items={list.data?.items}
        head={(w) => (
          <div class="record-head">
            <strong>{w.name}</strong> <code class="clip">{w.url}</code> <span class="muted small">{w.methods.join(', ')}</span>
            {w.paused && <span class="status s-cancelled">paused</span>}
          </div>
        )}
        logLabel="Request log"
        log={(id) => <IncomingLog id={id} />}
        remove={remove}
      />
    </Section>
  )
}

function IncomingLog(props: { id: string }) {
  const log = useLoad(() => ok(api.GET('/v1/webhooks/incoming/{id}/logs', { params: { path: { id: props.id } } })), [props.id])
  return (
    <Log
      log={log}
      empty="No requests yet."
      row={(d) => (
        <>
          <td>{date(d.at)}</td>
          <td>{d.method}</td>
          <td>{d.status}</td>
          <td>{d.outcome}</td>
          <td>{d.ip}</td>
        </>
      )}
    />
  )
}

function Automations() {
  const list = useLoad(() => ok(api.GET('/v1/automations', { params: { query: { per_page: 200 } } })))
  const boards = useLoad(() => ok(api.GET('/v1/boards', { params: { query: { per_page: 500 } } })))
  const boardName = (id: string) => boards.data?.items.find((b) => b.id === id)?.name ?? id
  const toggle = (a: Schemas['Automation']) =>
    ok(api.PATCH('/v1/automations/{id}', { params: { path: { id: a.id } }, body: { active: !a.active } })).then(list.reload, toastError)
  const remove = (id: string) => ok(api.DELETE('/v1/automations/{id}', { params: { path: { id } } })).then(list.reload, toastError)
  return (
    <Section title="Automations" error={list.error}>
      <Records
        items={list.data?.items}
        empty="No automations yet."
        head={(a) => (
          <>
            <div class="record-head">
              <strong>{a.name}</strong> <span class="muted small">on {boardName(a.board)}</span>{' '}
              <span class={`status ${a.active ? 's-completed' : 's-cancelled'}`}>{a.active ? 'on' : (a.paused_reason ?? 'off')}</span>
            </div>
            <div class="muted small">
              When:{' '}
              {a.trigger.type === 'event' ? a.trigger.events.join(', ') : a.trigger.type === 'schedule' ? `schedule ${a.trigger.cron}` : 'an incoming webhook'}{' '}
              · {a.steps.length} step{a.steps.length === 1 ? '' : 's'} · last run: {a.last_run ? `${a.last_run.status} ${date(a.last_run.at)}` : 'never'}
            </div>
          </>
        )}
        logLabel="Runs"
        log={(id) => <AutomationRuns id={id} />}
        actions={(a) => <LinkButton onClick={() => toggle(a)}>Turn {a.active ? 'off' : 'on'}</LinkButton>}
        remove={remove}
      />
      <AutomationForm boards={boards.data?.items ?? []} created={list.reload} />
    </Section>
  )
}

function AutomationRuns(props: { id: string }) {
  const runs = useLoad(() => ok(api.GET('/v1/automations/{id}/runs', { params: { path: { id: props.id }, query: { per_page: 20 } } })), [props.id])
  return (
    <Log
      log={runs}
      empty="No runs yet."
      row={(r) => (
        <>
          <td>{date(r.created)}</td>
          <td>{r.trigger.type}</td>
          <td class={`s-${r.status}`}>{r.status}</td>
          <td>{r.error ?? ''}</td>
        </>
      )}
    />
  )
}

function Agents() {
  const list = useLoad(() => ok(api.GET('/v1/users', { params: { query: { per_page: 500, filter: 'kind = "agent"' } } })))
  const runs = useLoad(() => ok(api.GET('/v1/agent-runs', { params: { query: { per_page: 30 } } })))
  const [name, setName] = useState('')
  const create = submitting(async () => {
    await ok(api.POST('/v1/users', { body: { name, kind: 'agent', agent: { owner: me.value!.id, powers: ['local_access'] } } }))
    setName('')
    list.reload()
  })
  return (
    <>
      <Section title="Agents" error={list.error}>
        <p class="muted">
          Agents are users that work on cards: assign one to a card to start a run. Give each a token (API tokens, for an agent you own). One added here is
          yours and is reached through your desktop app (local access); give it a wake URL or an AI service through the API.
        </p>
        <Table head={['Name', 'Owner', 'Wake URL', 'Powers']}>
          {list.data?.items.map((u) => (
            <tr key={u.id}>
              <td>{u.name}</td>
              <td>{u.agent?.owner.name ?? '—'}</td>
              <td class="clip">{u.agent?.wake_url ?? '—'}</td>
              <td>{u.agent?.powers.join(', ') || '—'}</td>
            </tr>
          ))}
        </Table>
        {isAdmin() && (
          <form class="inline-form" onSubmit={create}>
            <Field label="New agent" required value={name} placeholder="Name" set={setName} />
            <button type="submit">Add agent</button>
          </form>
        )}
      </Section>
      <Section title="Recent runs" error={runs.error}>
        <Table>
          {runs.data?.items.map((r) => (
            <tr key={r.id}>
              <td>{date(r.created)}</td>
              <td>{r.agent.name}</td>
              <td class={`s-${r.status}`}>{r.status.replace('_', ' ')}</td>
              <td class="clip">{r.summary ?? r.error ?? ''}</td>
            </tr>
          ))}
        </Table>
        {runs.data && runs.data.items.length === 0 && <p class="muted small">No runs yet.</p>}
      </Section>
    </>
  )
}

function Users() {
  const list = useLoad(() => ok(api.GET('/v1/users', { params: { query: { per_page: 500 } } })))
  const [email, setEmail] = useState('')
  const [name, setName] = useState('')
  const [role, setRole] = useState<(typeof ROLES)[number]>('member')
  const create = submitting(async () => {
    await ok(api.POST('/v1/users', { body: { email, name, role } }))
    setEmail('')
    setName('')
    toast(`${name} added. They sign in with a login link: taskd user login-link ${email}`)
    list.reload()
  })
  const setUserRole = (id: string, r: string) =>
    ok(api.PATCH('/v1/users/{id}', { params: { path: { id } }, body: { role: r as 'member' } })).then(list.reload, toastError)
  return (
    <Section title="Users" error={list.error}>
      <Table head={['Name', 'Email', 'Kind', 'Role']}>
        {list.data?.items.map((u) => (
          <tr key={u.id}>
            <td>{u.name}</td>
            <td class="clip">{u.email}</td>
            <td>{u.kind}</td>
            <td>
              {isAdmin() && u.id !== me.value?.id ? (
                <select aria-label={`Role of ${u.name}`} value={u.role} onChange={(e) => void setUserRole(u.id, e.currentTarget.value)}>
                  {roleOptions()}
                </select>
              ) : (
                u.role
              )}
            </td>
          </tr>
        ))}
      </Table>
      {isAdmin() && (
        <form class="inline-form wrap" onSubmit={create}>
          <Field label="Email" type="email" required value={email} set={setEmail} />
          <Field label="Name" required value={name} set={setName} />
          <label>
            Role
            <select value={role} onChange={(e) => setRole(e.currentTarget.value as typeof role)}>
              {roleOptions()}
            </select>
          </label>
          <button type="submit">Add user</button>
        </form>
      )}
    </Section>
  )
}

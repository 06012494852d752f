// Settings: your account (password, sessions), tokens, webhooks (with their delivery logs), incoming endpoints,
// automations (with their runs), agents and users. Each page reads and writes the same /v1 routes as any client.
import type { ComponentChildren } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { api, ok, errorText, type Schemas } from '../api/client'
import { isAdmin, me } from '../store/session'
import { toast, toastError } from '../store/toast'

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

function Account() {
  const [current, setCurrent] = useState('')
  const [next, setNext] = useState('')
  const sessions = useLoad(() => ok(api.GET('/v1/sessions', { params: { query: { per_page: 100 } } })))
  const change = async (e: Event) => {
    e.preventDefault()
    try {
      await ok(api.PATCH('/v1/users/me', { body: { password: next, ...(current ? { current_password: current } : {}) } }))
      setCurrent('')
      setNext('')
      toast('Password changed. Your other sessions have ended.')
      sessions.reload()
    } catch (err) {
      toastError(err)
    }
  }
  const revoke = (id: string) => ok(api.DELETE('/v1/sessions/{id}', { params: { path: { id } } })).then(sessions.reload, toastError)
  return (
    <>
      <Section title="Your account">
        <p>
          {me.value?.name} &lt;{me.value?.email}&gt;, {me.value?.role}
        </p>
        <form class="stack" onSubmit={(e) => void change(e)}>
          <h3>Password</h3>
          <label>
            Current password (leave empty if you have none yet)
            <input type="password" autocomplete="current-password" value={current} onInput={(e) => setCurrent(e.currentTarget.value)} />
          </label>
          <label>
            New password
            <input type="password" autocomplete="new-password" required minLength={10} value={next} onInput={(e) => setNext(e.currentTarget.value)} />
          </label>
          <button type="submit">Set password</button>
        </form>
      </Section>
      <Section title="Signed-in browsers" error={sessions.error}>
        <table>
          <thead>
            <tr>
              <th>Browser</th>
              <th>Signed in</th>
              <th>Last used</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {sessions.data?.items.map((s) => (
              <tr key={s.id}>
                <td class="clip">{s.user_agent ?? 'unknown'}</td>
                <td>{date(s.created)}</td>
                <td>{date(s.last_used)}</td>
                <td>
                  {s.current ? (
                    <span class="muted small">this one</span>
                  ) : (
                    <button type="button" class="link" onClick={() => void revoke(s.id)}>
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
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
  const create = async (e: Event) => {
    e.preventDefault()
    try {
      const r = await ok(api.POST('/v1/tokens', { body: { name, permission, ...(expires ? { expires_at: expires } : {}) } }))
      setMade(r.value)
      setName('')
      list.reload()
    } catch (err) {
      toastError(err)
    }
  }
  const revoke = (id: string) => ok(api.DELETE('/v1/tokens/{id}', { params: { path: { id } } })).then(list.reload, toastError)
  return (
    <Section title="API tokens" error={list.error}>
      <p class="muted">Tokens let scripts, n8n and agents use the API as you. The value is shown once.</p>
      <form class="inline-form wrap" onSubmit={(e) => void create(e)}>
        <label>
          Name
          <input required value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <label>
          Permission
          <select value={permission} onChange={(e) => setPermission(e.currentTarget.value as typeof permission)}>
            <option value="read">Read only</option>
            <option value="write">Can edit</option>
            {isAdmin() && <option value="full">Full Access</option>}
          </select>
        </label>
        <label>
          Expires
          <input type="date" value={expires} onInput={(e) => setExpires(e.currentTarget.value)} />
        </label>
        <button type="submit">Create token</button>
      </form>
      {made && (
        <p class="notice" role="status">
          New token (copy it now, it is not shown again): <code class="secret">{made}</code>
        </p>
      )}
      <table>
        <thead>
          <tr>
            <th>Name</th>
            <th>Permission</th>
            <th>Owner</th>
            <th>Last used</th>
            <th>Expires</th>
            <th />
          </tr>
        </thead>
        <tbody>
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
                <button type="button" class="link" onClick={() => void revoke(t.id)}>
                  Revoke
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Section>
  )
}

function Webhooks() {
  const list = useLoad(() => ok(api.GET('/v1/webhooks', { params: { query: { per_page: 200 } } })))
  const [name, setName] = useState('')
  const [url, setUrl] = useState('')
  const [events, setEvents] = useState('card.*')
  const [open, setOpen] = useState<string | null>(null)
  const [secret, setSecret] = useState<string | null>(null)
  const create = async (e: Event) => {
    e.preventDefault()
    try {
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
    } catch (err) {
      toastError(err)
    }
  }
  const remove = (id: string) => ok(api.DELETE('/v1/webhooks/{id}', { params: { path: { id } } })).then(list.reload, toastError)
  const test = (id: string) => ok(api.POST('/v1/webhooks/{id}/test', { params: { path: { id } } })).then(() => toast('Test delivery queued.'), toastError)
  const toggle = (w: Schemas['Webhook']) =>
    ok(api.PATCH('/v1/webhooks/{id}', { params: { path: { id: w.id } }, body: { active: !w.active } })).then(list.reload, toastError)
  return (
    <Section title="Webhooks" error={list.error}>
      <p class="muted">Outgoing webhooks POST each chosen event to a URL, signed when they have a secret.</p>
      <form class="inline-form wrap" onSubmit={(e) => void create(e)}>
        <label>
          Name
          <input required value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <label>
          URL
          <input required type="url" placeholder="https://example.com/hook" value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
        </label>
        <label>
          Events
          <input required value={events} onInput={(e) => setEvents(e.currentTarget.value)} />
        </label>
        <button type="submit">Add webhook</button>
      </form>
      {secret && (
        <p class="notice" role="status">
          Signing secret (shown once): <code class="secret">{secret}</code>
        </p>
      )}
      <ul class="records">
        {list.data?.items.map((w) => (
          <li key={w.id}>
            <div class="record-head">
              <strong>{w.name}</strong> <code class="clip">{w.url}</code>
              <span class={`status ${w.active ? 's-completed' : 's-cancelled'}`}>{w.active ? 'active' : (w.paused_reason ?? 'paused')}</span>
            </div>
            <div class="muted small">
              {w.events.join(', ')} · last delivery: {w.last_delivery ? `${w.last_delivery.outcome} ${date(w.last_delivery.at)}` : 'none yet'}
            </div>
            <div class="row">
              <button type="button" class="link" aria-expanded={open === w.id} onClick={() => setOpen(open === w.id ? null : w.id)}>
                Delivery log
              </button>
              <button type="button" class="link" onClick={() => void test(w.id)}>
                Send test
              </button>
              <button type="button" class="link" onClick={() => void toggle(w)}>
                {w.active ? 'Pause' : 'Resume'}
              </button>
              <button type="button" class="link danger" onClick={() => void remove(w.id)}>
                Delete
              </button>
            </div>
            {open === w.id && <WebhookLog id={w.id} />}
          </li>
        ))}
      </ul>
      {list.data && list.data.items.length === 0 && <p class="muted">No webhooks yet.</p>}
    </Section>
  )
}

function WebhookLog(props: { id: string }) {
  const log = useLoad(() => ok(api.GET('/v1/webhooks/{id}/logs', { params: { path: { id: props.id } } })), [props.id])
  return (
    <div class="log">
      <button type="button" class="link small" onClick={log.reload}>
        Refresh
      </button>
      {log.error && <p class="error">{log.error}</p>}
      {log.data && log.data.items.length === 0 && <p class="muted small">No deliveries yet.</p>}
      <table>
        <tbody>
          {log.data?.items.map((d) => (
            <tr key={d.id}>
              <td>{date(d.at)}</td>
              <td>{d.event}</td>
              <td>#{d.attempt}</td>
              <td class={`s-${d.outcome}`}>{d.outcome}</td>
              <td>{d.status_code ?? d.error ?? ''}</td>
              <td>{d.duration_ms} ms</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

function Incoming() {
  const list = useLoad(() => ok(api.GET('/v1/webhooks/incoming', { params: { query: { per_page: 200 } } })))
  const [name, setName] = useState('')
  const [open, setOpen] = useState<string | null>(null)
  const create = async (e: Event) => {
    e.preventDefault()
    try {
      await ok(api.POST('/v1/webhooks/incoming', { body: { name } }))
      setName('')
      list.reload()
    } catch (err) {
      toastError(err)
    }
  }
  const remove = (id: string) => ok(api.DELETE('/v1/webhooks/incoming/{id}', { params: { path: { id } } })).then(list.reload, toastError)
  if (!isAdmin()) return <Section title="Incoming endpoints">{<p class="muted">Only owners and admins manage incoming endpoints.</p>}</Section>
  return (
    <Section title="Incoming endpoints" error={list.error}>
      <p class="muted">An incoming endpoint is a URL other services call; automations act on what arrives.</p>
      <form class="inline-form" onSubmit={(e) => void create(e)}>
        <label>
          Name
          <input required value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <button type="submit">Add endpoint</button>
      </form>
      <ul class="records">
        {list.data?.items.map((w) => (
          <li key={w.id}>
            <div class="record-head">
              <strong>{w.name}</strong> <code class="clip">{w.url}</code> <span class="muted small">{w.methods.join(', ')}</span>
              {w.paused && <span class="status s-cancelled">paused</span>}
            </div>
            <div class="row">
              <button type="button" class="link" aria-expanded={open === w.id} onClick={() => setOpen(open === w.id ? null : w.id)}>
                Request log
              </button>
              <button type="button" class="link danger" onClick={() => void remove(w.id)}>
                Delete
              </button>
            </div>
            {open === w.id && <IncomingLog id={w.id} />}
          </li>
        ))}
      </ul>
    </Section>
  )
}

function IncomingLog(props: { id: string }) {
  const log = useLoad(() => ok(api.GET('/v1/webhooks/incoming/{id}/logs', { params: { path: { id: props.id } } })), [props.id])
  return (
    <div class="log">
      {log.error && <p class="error">{log.error}</p>}
      {log.data && log.data.items.length === 0 && <p class="muted small">No requests yet.</p>}
      <table>
        <tbody>
          {log.data?.items.map((d) => (
            <tr key={d.id}>
              <td>{date(d.at)}</td>
              <td>{d.method}</td>
              <td>{d.status}</td>
              <td>{d.outcome}</td>
              <td>{d.ip}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

function Automations() {
  const list = useLoad(() => ok(api.GET('/v1/automations', { params: { query: { per_page: 200 } } })))
  const boards = useLoad(() => ok(api.GET('/v1/boards', { params: { query: { per_page: 500 } } })))
  const [json, setJson] = useState('')
  const [open, setOpen] = useState<string | null>(null)
  const boardName = (id: string) => boards.data?.items.find((b) => b.id === id)?.name ?? id
  const example = (board: string) =>
    JSON.stringify(
      {
        name: 'Comment when a card is completed',
        board,
        trigger: { type: 'event', events: ['card.completed'] },
        steps: [{ type: 'add_comment', card: '{{event.data.id}}', body: 'Done, thanks!' }],
      },
      null,
      2,
    )
  const create = async (e: Event) => {
    e.preventDefault()
    let body: Schemas['CreateAutomationBody']
    try {
      body = JSON.parse(json) as Schemas['CreateAutomationBody']
    } catch {
      return toast('The automation is not valid JSON.', 'error')
    }
    try {
      await ok(api.POST('/v1/automations', { body }))
      setJson('')
      list.reload()
    } catch (err) {
      toastError(err)
    }
  }
  const toggle = (a: Schemas['Automation']) =>
    ok(api.PATCH('/v1/automations/{id}', { params: { path: { id: a.id } }, body: { active: !a.active } })).then(list.reload, toastError)
  const remove = (id: string) => ok(api.DELETE('/v1/automations/{id}', { params: { path: { id } } })).then(list.reload, toastError)
  return (
    <Section title="Automations" error={list.error}>
      <ul class="records">
        {list.data?.items.map((a) => (
          <li key={a.id}>
            <div class="record-head">
              <strong>{a.name}</strong> <span class="muted small">on {boardName(a.board)}</span>{' '}
              <span class={`status ${a.active ? 's-completed' : 's-cancelled'}`}>{a.active ? 'on' : (a.paused_reason ?? 'off')}</span>
            </div>
            <div class="muted small">
              When:{' '}
              {a.trigger.type === 'event' ? a.trigger.events.join(', ') : a.trigger.type === 'schedule' ? `schedule ${a.trigger.cron}` : 'an incoming webhook'}{' '}
              · {a.steps.length} step{a.steps.length === 1 ? '' : 's'} · last run: {a.last_run ? `${a.last_run.status} ${date(a.last_run.at)}` : 'never'}
            </div>
            <div class="row">
              <button type="button" class="link" onClick={() => setOpen(open === a.id ? null : a.id)} aria-expanded={open === a.id}>
                Runs
              </button>
              <button type="button" class="link" onClick={() => void toggle(a)}>
                Turn {a.active ? 'off' : 'on'}
              </button>
              <button type="button" class="link danger" onClick={() => void remove(a.id)}>
                Delete
              </button>
            </div>
            {open === a.id && <AutomationRuns id={a.id} />}
          </li>
        ))}
      </ul>
      {list.data && list.data.items.length === 0 && <p class="muted">No automations yet.</p>}
      <form class="stack" onSubmit={(e) => void create(e)}>
        <h3>New automation</h3>
        <p class="muted small">
          An automation is a trigger and its steps, as JSON (the API reference at <a href="/v1/docs/">/v1/docs</a> lists every step).{' '}
          {boards.data?.items[0] && (
            <button type="button" class="link small" onClick={() => setJson(example(boards.data!.items[0].id))}>
              Start from an example
            </button>
          )}
        </p>
        <label class="sr-only" for="automation-json">
          Automation JSON
        </label>
        <textarea id="automation-json" class="mono" rows={10} value={json} onInput={(e) => setJson(e.currentTarget.value)} />
        <button type="submit">Create automation</button>
      </form>
    </Section>
  )
}

function AutomationRuns(props: { id: string }) {
  const runs = useLoad(() => ok(api.GET('/v1/automations/{id}/runs', { params: { path: { id: props.id }, query: { per_page: 20 } } })), [props.id])
  return (
    <div class="log">
      {runs.error && <p class="error">{runs.error}</p>}
      {runs.data && runs.data.items.length === 0 && <p class="muted small">No runs yet.</p>}
      <table>
        <tbody>
          {runs.data?.items.map((r) => (
            <tr key={r.id}>
              <td>{date(r.created)}</td>
              <td>{r.trigger.type}</td>
              <td class={`s-${r.status}`}>{r.status}</td>
              <td>{r.error ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

function Agents() {
  const list = useLoad(() => ok(api.GET('/v1/users', { params: { query: { per_page: 500, filter: 'kind = "agent"' } } })))
  const runs = useLoad(() => ok(api.GET('/v1/agent-runs', { params: { query: { per_page: 30 } } })))
  const [name, setName] = useState('')
  const create = async (e: Event) => {
    e.preventDefault()
    try {
      await ok(api.POST('/v1/users', { body: { name, kind: 'agent', agent: { owner: me.value!.id, powers: [] } } }))
      setName('')
      list.reload()
    } catch (err) {
      toastError(err)
    }
  }
  return (
    <>
      <Section title="Agents" error={list.error}>
        <p class="muted">Agents are users that work on cards: assign one to a card to start a run. Give each a token (API tokens, for an agent you own).</p>
        <table>
          <thead>
            <tr>
              <th>Name</th>
              <th>Owner</th>
              <th>Wake URL</th>
              <th>Powers</th>
            </tr>
          </thead>
          <tbody>
            {list.data?.items.map((u) => (
              <tr key={u.id}>
                <td>{u.name}</td>
                <td>{u.agent?.owner.name ?? '—'}</td>
                <td class="clip">{u.agent?.wake_url ?? '—'}</td>
                <td>{u.agent?.powers.join(', ') || '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {isAdmin() && (
          <form class="inline-form" onSubmit={(e) => void create(e)}>
            <label>
              New agent
              <input required value={name} placeholder="Name" onInput={(e) => setName(e.currentTarget.value)} />
            </label>
            <button type="submit">Add agent</button>
          </form>
        )}
      </Section>
      <Section title="Recent runs" error={runs.error}>
        <table>
          <tbody>
            {runs.data?.items.map((r) => (
              <tr key={r.id}>
                <td>{date(r.created)}</td>
                <td>{r.agent.name}</td>
                <td class={`s-${r.status}`}>{r.status.replace('_', ' ')}</td>
                <td class="clip">{r.summary ?? r.error ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {runs.data && runs.data.items.length === 0 && <p class="muted small">No runs yet.</p>}
      </Section>
    </>
  )
}

function Users() {
  const list = useLoad(() => ok(api.GET('/v1/users', { params: { query: { per_page: 500 } } })))
  const [email, setEmail] = useState('')
  const [name, setName] = useState('')
  const [role, setRole] = useState<'member' | 'admin' | 'owner'>('member')
  const create = async (e: Event) => {
    e.preventDefault()
    try {
      await ok(api.POST('/v1/users', { body: { email, name, role } }))
      setEmail('')
      setName('')
      toast(`${name} added. They sign in with a login link: taskd user login-link ${email}`)
      list.reload()
    } catch (err) {
      toastError(err)
    }
  }
  const setUserRole = (id: string, r: string) =>
    ok(api.PATCH('/v1/users/{id}', { params: { path: { id } }, body: { role: r as 'member' } })).then(list.reload, toastError)
  return (
    <Section title="Users" error={list.error}>
      <table>
        <thead>
          <tr>
            <th>Name</th>
            <th>Email</th>
            <th>Kind</th>
            <th>Role</th>
          </tr>
        </thead>
        <tbody>
          {list.data?.items.map((u) => (
            <tr key={u.id}>
              <td>{u.name}</td>
              <td class="clip">{u.email}</td>
              <td>{u.kind}</td>
              <td>
                {isAdmin() && u.id !== me.value?.id ? (
                  <select aria-label={`Role of ${u.name}`} value={u.role} onChange={(e) => void setUserRole(u.id, e.currentTarget.value)}>
                    <option value="member">member</option>
                    <option value="admin">admin</option>
                    <option value="owner">owner</option>
                  </select>
                ) : (
                  u.role
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {isAdmin() && (
        <form class="inline-form wrap" onSubmit={(e) => void create(e)}>
          <label>
            Email
            <input type="email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
          </label>
          <label>
            Name
            <input required value={name} onInput={(e) => setName(e.currentTarget.value)} />
          </label>
          <label>
            Role
            <select value={role} onChange={(e) => setRole(e.currentTarget.value as typeof role)}>
              <option value="member">member</option>
              <option value="admin">admin</option>
              <option value="owner">owner</option>
            </select>
          </label>
          <button type="submit">Add user</button>
        </form>
      )}
    </Section>
  )
}

// A card's detail, in a <dialog>: title, Markdown description, list, priority, dates, assignees, tags, custom fields,
// checklists, files, the timer, agent runs (approve / return), comments. Read again when the change feed says the card,
// its comments or checklists changed.
import { useEffect, useRef, useState } from 'preact/hooks'
import { api, ok, type Card, type Schemas } from '../api/client'
import { onEvents } from '../live/feed'
import { applyCard, cards, fields, lists, moveCard, tags, updateCard, users } from '../store/board'
import { me } from '../store/session'
import { toast, toastError } from '../store/toast'

type Comment = Schemas['Comment']
type Checklist = Schemas['Checklist']
type FileRecord = Schemas['File']
type AgentRun = Schemas['AgentRun']
type TimeEntry = Schemas['TimeEntry']

let markdown: Promise<{ renderMarkdown: (text: string) => string }> | undefined
function Markdown(props: { text: string; class?: string }) {
  const [html, setHtml] = useState<string | null>(null)
  useEffect(() => {
    markdown ??= import('./markdown')
    void markdown.then((m) => setHtml(m.renderMarkdown(props.text)))
  }, [props.text])
  return html === null ? (
    <div class={props.class}>{props.text}</div>
  ) : (
    <div class={`markdown ${props.class ?? ''}`} dangerouslySetInnerHTML={{ __html: html }} />
  )
}

const when = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })

export function CardDetail(props: { cardId: string; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null)
  const [own, setOwn] = useState<Card | null>(null)
  const card = cards.value.get(props.cardId) ?? own
  const [comments, setComments] = useState<Comment[]>([])
  const [checklists, setChecklists] = useState<Checklist[]>([])
  const [files, setFiles] = useState<FileRecord[]>([])
  const [runs, setRuns] = useState<AgentRun[]>([])
  const [timer, setTimer] = useState<TimeEntry | null>(null)

  const loadCard = () =>
    ok(api.GET('/v1/cards/{id}', { params: { path: { id: props.cardId } } })).then((r) => {
      setOwn(r.card)
      applyCard(r.card)
    }, toastError)
  const loadComments = () =>
    ok(api.GET('/v1/comments', { params: { query: { card: props.cardId, per_page: 500 } } })).then((r) => setComments(r.items), toastError)
  const loadChecklists = () =>
    ok(api.GET('/v1/checklists', { params: { query: { card: props.cardId, per_page: 100 } } })).then((r) => setChecklists(r.items), toastError)
  const loadFiles = () => ok(api.GET('/v1/files', { params: { query: { card: props.cardId, per_page: 200 } } })).then((r) => setFiles(r.items), toastError)
  const loadRuns = () => ok(api.GET('/v1/agent-runs', { params: { query: { card: props.cardId, per_page: 20 } } })).then((r) => setRuns(r.items), toastError)
  const loadTimer = () => ok(api.GET('/v1/time-entries/timer')).then((r) => setTimer(r.time_entry), toastError)

  useEffect(() => {
    ref.current?.showModal()
    void loadCard()
    void loadComments()
    void loadChecklists()
    void loadFiles()
    void loadRuns()
    void loadTimer()
    return onEvents((events) => {
      for (const e of events) {
        const data = e.data as { id?: string; card?: { id?: string } }
        const mine = data.id === props.cardId || data.card?.id === props.cardId
        if (!mine) continue
        if (e.event.startsWith('comment.')) void loadComments()
        else if (e.event.startsWith('checklist.')) void loadChecklists()
        else if (e.event.startsWith('agent.')) void loadRuns()
        else if (e.event.startsWith('timer.')) void loadTimer()
        else if (e.event.startsWith('card.')) void loadCard()
      }
    })
  }, [props.cardId])

  if (!card)
    return (
      <dialog ref={ref} class="card-dialog" onClose={props.onClose}>
        <p class="muted">Loading…</p>
      </dialog>
    )

  const save = async (body: Schemas['UpdateCardBody']) => {
    try {
      setOwn(await updateCard(card.id, body))
    } catch (err) {
      toastError(err)
    }
  }

  return (
    <dialog ref={ref} class="card-dialog" aria-labelledby="card-title" onClose={props.onClose}>
      <div class="card-dialog-head">
        <span class="card-key">{card.key}</span>
        <button type="button" class="icon close" aria-label="Close" onClick={() => ref.current?.close()}>
          ✕
        </button>
      </div>
      <Title card={card} onSave={(title) => void save({ title })} />
      <div class="card-body">
        <div class="card-main">
          <Description card={card} onSave={(description) => save({ description })} />
          <Checklists card={card} checklists={checklists} reload={loadChecklists} />
          <Files card={card} files={files} reload={loadFiles} />
          <Runs runs={runs} reload={loadRuns} />
          <Comments card={card} comments={comments} reload={loadComments} />
        </div>
        <aside class="card-side" aria-label="Fields">
          <label>
            List
            <select
              value={card.list}
              onChange={(e) => {
                const list = e.currentTarget.value
                moveCard(card.id, list, Number.MAX_SAFE_INTEGER).catch(toastError)
              }}
            >
              {lists.value.map((l) => (
                <option key={l.id} value={l.id}>
                  {l.name}
                </option>
              ))}
            </select>
          </label>
          <label class="check">
            <input type="checkbox" checked={card.completed} onChange={(e) => void save({ completed: e.currentTarget.checked })} /> Completed
          </label>
          <label>
            Priority
            <select value={String(card.priority)} onChange={(e) => void save({ priority: Number(e.currentTarget.value) })}>
              {['None', 'Low', 'Medium', 'High', 'Urgent'].map((p, i) => (
                <option key={p} value={String(i)}>
                  {p}
                </option>
              ))}
            </select>
          </label>
          <label>
            Start date
            <input type="date" value={card.start_date?.slice(0, 10) ?? ''} onChange={(e) => void save({ start_date: e.currentTarget.value || null })} />
          </label>
          <label>
            Due date
            <input type="date" value={card.due_date?.slice(0, 10) ?? ''} onChange={(e) => void save({ due_date: e.currentTarget.value || null })} />
          </label>
          <Picker
            title="Assignees"
            options={[...users.value.values()].filter((u) => u.kind === 'human' || u.kind === 'agent').map((u) => ({ id: u.id, name: u.name }))}
            chosen={card.assignees}
            onChange={(assignees) => void save({ assignees })}
          />
          <Picker title="Tags" options={tags.value.map((t) => ({ id: t.id, name: t.name }))} chosen={card.tags} onChange={(t) => void save({ tags: t })} />
          <CustomFields card={card} onSave={(xattr) => void save({ xattr })} />
          <Timer card={card} timer={timer} setTimer={setTimer} />
          <p class="muted small">
            Created {when(card.created)}
            {card.created_by ? ` by ${card.created_by.name}` : ''}. Updated {when(card.updated)}.
          </p>
        </aside>
      </div>
    </dialog>
  )
}

function Title(props: { card: Card; onSave: (title: string) => void }) {
  const [text, setText] = useState(props.card.title)
  useEffect(() => setText(props.card.title), [props.card.title])
  const commit = () => {
    const t = text.trim()
    if (t && t !== props.card.title) props.onSave(t)
  }
  return (
    <h2 class="card-title-edit">
      <label class="sr-only" for="card-title">
        Title
      </label>
      <input
        id="card-title"
        value={text}
        onInput={(e) => setText(e.currentTarget.value)}
        onBlur={commit}
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            e.preventDefault()
            commit()
          }
        }}
      />
    </h2>
  )
}

function Description(props: { card: Card; onSave: (text: string) => Promise<void> }) {
  const [editing, setEditing] = useState(false)
  const [text, setText] = useState(props.card.description)
  return (
    <section class="detail-section" aria-labelledby="desc-h">
      <h3 id="desc-h">
        Description{' '}
        {!editing && (
          <button
            type="button"
            class="link small"
            onClick={() => {
              setText(props.card.description)
              setEditing(true)
            }}
          >
            Edit
          </button>
        )}
      </h3>
      {editing ? (
        <form
          onSubmit={(e) => {
            e.preventDefault()
            void props.onSave(text).then(() => setEditing(false))
          }}
        >
          <label class="sr-only" for="desc-text">
            Description (Markdown)
          </label>
          <textarea id="desc-text" rows={8} value={text} onInput={(e) => setText(e.currentTarget.value)} />
          <div class="row">
            <button type="submit" class="primary">
              Save
            </button>
            <button type="button" class="link" onClick={() => setEditing(false)}>
              Cancel
            </button>
          </div>
        </form>
      ) : props.card.description ? (
        <Markdown text={props.card.description} class="description" />
      ) : (
        <p class="muted">No description.</p>
      )}
    </section>
  )
}

function Picker(props: { title: string; options: { id: string; name: string }[]; chosen: string[]; onChange: (ids: string[]) => void }) {
  const chosen = new Set(props.chosen)
  const names = props.options.filter((o) => chosen.has(o.id)).map((o) => o.name)
  return (
    <details class="picker">
      <summary>
        {props.title}: <span class="muted">{names.length ? names.join(', ') : 'none'}</span>
      </summary>
      <ul>
        {props.options.map((o) => (
          <li key={o.id}>
            <label class="check">
              <input
                type="checkbox"
                checked={chosen.has(o.id)}
                onChange={(e) => props.onChange(e.currentTarget.checked ? [...props.chosen, o.id] : props.chosen.filter((id) => id !== o.id))}
              />{' '}
              {o.name}
            </label>
          </li>
        ))}
        {props.options.length === 0 && <li class="muted small">None on this board.</li>}
      </ul>
    </details>
  )
}

function CustomFields(props: { card: Card; onSave: (xattr: Record<string, unknown>) => void }) {
  const defs = fields.value.filter((f) => f.board === props.card.board)
  if (!defs.length) return null
  const values = props.card.xattr as Record<string, unknown>
  return (
    <fieldset class="custom-fields">
      <legend>Custom fields</legend>
      {defs.map((f) => {
        const v = values[f.key]
        const set = (value: unknown) => props.onSave({ [f.key]: value === '' ? null : value })
        const options = (f.options ?? []) as { id: string; name: string }[]
        if (f.type === 'rollup' || f.type === 'formula')
          return (
            <p key={f.id} class="small">
              {f.name}: <strong>{v === null || v === undefined ? '—' : String(v)}</strong>
            </p>
          )
        return (
          <label key={f.id}>
            {f.name}
            {f.type === 'boolean' ? (
              <input type="checkbox" checked={v === true} onChange={(e) => set(e.currentTarget.checked)} />
            ) : f.type === 'select' ? (
              <select value={typeof v === 'string' ? v : ''} onChange={(e) => set(e.currentTarget.value)}>
                <option value="">—</option>
                {options.map((o) => (
                  <option key={o.id} value={o.id}>
                    {o.name}
                  </option>
                ))}
              </select>
            ) : f.type === 'multi_select' ? (
              <select
                multiple
                ref={(el) => {
                  if (el) for (const o of el.options) o.selected = Array.isArray(v) && (v as string[]).includes(o.value)
                }}
                onChange={(e) => set([...e.currentTarget.selectedOptions].map((o) => o.value))}
              >
                {options.map((o) => (
                  <option key={o.id} value={o.id}>
                    {o.name}
                  </option>
                ))}
              </select>
            ) : f.type === 'user' ? (
              <select value={typeof v === 'string' ? v : ''} onChange={(e) => set(e.currentTarget.value)}>
                <option value="">—</option>
                {[...users.value.values()].map((u) => (
                  <option key={u.id} value={u.id}>
                    {u.name}
                  </option>
                ))}
              </select>
            ) : (
              <FieldInput
                type={f.type === 'number' ? 'number' : f.type === 'date' ? 'date' : f.type === 'url' ? 'url' : 'text'}
                stored={v === null || v === undefined ? '' : String(v).slice(0, f.type === 'date' ? 10 : undefined)}
                commit={(text) => set(f.type === 'number' && text !== '' ? Number(text) : text)}
              />
            )}
          </label>
        )
      })}
    </fieldset>
  )
}

/**
 * A custom field's text, number, date or URL input. What is typed is the input's own until it is committed (Enter,
 * leaving the field, a date picked), so a re-render meanwhile (a change arriving from the feed) does not wipe it; a new
 * stored value replaces it. Leaving the field commits by itself: Firefox does not always send `change` for a number
 * field whose text was put in by a script or an assistive tool.
 */
function FieldInput(props: { type: 'number' | 'date' | 'url' | 'text'; stored: string; commit: (text: string) => void }) {
  const [text, setText] = useState(props.stored)
  const sent = useRef(props.stored)
  useEffect(() => {
    setText(props.stored)
    sent.current = props.stored
  }, [props.stored])
  const commit = (value: string) => {
    if (value === sent.current) return
    sent.current = value
    props.commit(value)
  }
  return (
    <input
      type={props.type as 'text'}
      value={text}
      onInput={(e) => setText(e.currentTarget.value)}
      onChange={(e) => commit(e.currentTarget.value)}
      onBlur={(e) => commit(e.currentTarget.value)}
      onKeyDown={(e) => {
        if (e.key === 'Enter') commit(e.currentTarget.value)
      }}
    />
  )
}

function Timer(props: { card: Card; timer: TimeEntry | null; setTimer: (t: TimeEntry | null) => void }) {
  const here = props.timer?.card === props.card.id
  const [, tick] = useState(0)
  useEffect(() => {
    if (!here) return
    const t = setInterval(() => tick((n) => n + 1), 1000)
    return () => clearInterval(t)
  }, [here])
  const seconds = here && props.timer ? Math.max(0, Math.floor((Date.now() - Date.parse(props.timer.started_at)) / 1000)) : 0
  const clock = `${Math.floor(seconds / 3600)}:${String(Math.floor(seconds / 60) % 60).padStart(2, '0')}:${String(seconds % 60).padStart(2, '0')}`
  const start = () => ok(api.POST('/v1/time-entries/timer/start', { body: { card: props.card.id } })).then((r) => props.setTimer(r.time_entry), toastError)
  const stop = () =>
    ok(api.POST('/v1/time-entries/timer/stop')).then((r) => {
      props.setTimer(null)
      toast(`Timer stopped: ${Math.round(r.time_entry.duration_seconds / 60)} min recorded.`)
    }, toastError)
  return (
    <div class="timer">
      <span>Timer</span>
      {here ? (
        <>
          <span class="timer-clock" aria-label="Time on this card">
            {clock}
          </span>
          <button type="button" onClick={() => void stop()}>
            Stop
          </button>
        </>
      ) : (
        <button type="button" onClick={() => void start()}>
          Start
        </button>
      )}
    </div>
  )
}

function Checklists(props: { card: Card; checklists: Checklist[]; reload: () => Promise<void> }) {
  const [title, setTitle] = useState('')
  const add = async (e: Event) => {
    e.preventDefault()
    if (!title.trim()) return
    await ok(api.POST('/v1/checklists', { body: { card: props.card.id, title: title.trim() } })).catch(toastError)
    setTitle('')
    await props.reload()
  }
  return (
    <section class="detail-section" aria-labelledby="cl-h">
      <h3 id="cl-h">Checklists</h3>
      {props.checklists.map((cl) => (
        <ChecklistView key={cl.id} checklist={cl} reload={props.reload} />
      ))}
      <form class="inline-form" onSubmit={(e) => void add(e)}>
        <label class="sr-only" for="new-checklist">
          New checklist title
        </label>
        <input id="new-checklist" placeholder="New checklist" value={title} onInput={(e) => setTitle(e.currentTarget.value)} />
        <button type="submit">Add</button>
      </form>
    </section>
  )
}

function ChecklistView(props: { checklist: Checklist; reload: () => Promise<void> }) {
  const cl = props.checklist
  const [text, setText] = useState('')
  const done = cl.items.filter((i) => i.completed).length
  const tick = (item: string, completed: boolean) =>
    ok(api.PATCH('/v1/checklists/{id}/items/{item}', { params: { path: { id: cl.id, item } }, body: { completed } })).then(() => props.reload(), toastError)
  const add = async (e: Event) => {
    e.preventDefault()
    if (!text.trim()) return
    await ok(api.POST('/v1/checklists/{id}/items', { params: { path: { id: cl.id } }, body: { text: text.trim() } })).catch(toastError)
    setText('')
    await props.reload()
  }
  return (
    <div class="checklist">
      <h4>
        {cl.title}{' '}
        <span class="muted small">
          {done}/{cl.items.length}
        </span>
      </h4>
      <ul>
        {cl.items.map((i) => (
          <li key={i.id}>
            <label class={`check${i.completed ? ' done' : ''}`}>
              <input type="checkbox" checked={i.completed} onChange={(e) => void tick(i.id, e.currentTarget.checked)} /> {i.text}
            </label>
          </li>
        ))}
      </ul>
      <form class="inline-form" onSubmit={(e) => void add(e)}>
        <label class="sr-only" for={`item-${cl.id}`}>
          New item of {cl.title}
        </label>
        <input id={`item-${cl.id}`} placeholder="Add an item" value={text} onInput={(e) => setText(e.currentTarget.value)} />
        <button type="submit">Add</button>
      </form>
    </div>
  )
}

const size = (n: number) => (n < 1024 ? `${n} B` : n < 1048576 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1048576).toFixed(1)} MB`)

function Files(props: { card: Card; files: FileRecord[]; reload: () => Promise<void> }) {
  const [busy, setBusy] = useState(false)
  const upload = async (input: HTMLInputElement) => {
    const chosen = input.files?.[0]
    if (!chosen) return
    setBusy(true)
    try {
      const form = new FormData()
      form.append('card', props.card.id)
      form.append('file', chosen, chosen.name)
      await ok(api.POST('/v1/files', { body: form as never, bodySerializer: (b: unknown) => b as FormData }))
      input.value = ''
      await props.reload()
    } catch (err) {
      toastError(err)
    } finally {
      setBusy(false)
    }
  }
  const remove = (id: string) => ok(api.DELETE('/v1/files/{id}', { params: { path: { id } } })).then(() => props.reload(), toastError)
  return (
    <section class="detail-section" aria-labelledby="files-h">
      <h3 id="files-h">Files</h3>
      <ul class="files">
        {props.files.map((f) => (
          <li key={f.id}>
            <a href={`/v1/files/${f.id}/content`} download={f.name}>
              {f.name}
            </a>{' '}
            <span class="muted small">{size(f.size)}</span>{' '}
            <button type="button" class="link small" onClick={() => void remove(f.id)} aria-label={`Delete ${f.name}`}>
              Delete
            </button>
          </li>
        ))}
      </ul>
      <label class="upload">
        {busy ? 'Uploading…' : 'Attach a file'}
        <input type="file" disabled={busy} onChange={(e) => void upload(e.currentTarget)} />
      </label>
    </section>
  )
}

function Runs(props: { runs: AgentRun[]; reload: () => Promise<void> }) {
  const [feedback, setFeedback] = useState<Record<string, string>>({})
  if (!props.runs.length) return null
  const approve = (id: string) => ok(api.POST('/v1/agent-runs/{id}/approve', { params: { path: { id } } })).then(() => props.reload(), toastError)
  const back = (id: string) =>
    ok(api.POST('/v1/agent-runs/{id}/return', { params: { path: { id } }, body: { feedback: feedback[id] || 'Please look again.' } })).then(
      () => props.reload(),
      toastError,
    )
  return (
    <section class="detail-section" aria-labelledby="runs-h">
      <h3 id="runs-h">Agent runs</h3>
      <ul class="runs">
        {props.runs.map((r) => (
          <li key={r.id}>
            <div>
              <strong>{r.agent.name}</strong> <span class={`status s-${r.status}`}>{r.status.replace('_', ' ')}</span>
              {r.step && <span class="muted small"> step {r.step.name}</span>}
            </div>
            {r.summary && <Markdown text={r.summary} class="small" />}
            {r.error && <p class="error small">{r.error}</p>}
            {r.status === 'done_proposed' && (
              <div class="run-actions">
                <button type="button" class="primary" onClick={() => void approve(r.id)}>
                  Approve
                </button>
                <label class="sr-only" for={`fb-${r.id}`}>
                  Feedback for {r.agent.name}
                </label>
                <input
                  id={`fb-${r.id}`}
                  placeholder="Feedback when returning"
                  value={feedback[r.id] ?? ''}
                  onInput={(e) => setFeedback({ ...feedback, [r.id]: e.currentTarget.value })}
                />
                <button type="button" onClick={() => void back(r.id)}>
                  Return
                </button>
              </div>
            )}
          </li>
        ))}
      </ul>
    </section>
  )
}

function Comments(props: { card: Card; comments: Comment[]; reload: () => Promise<void> }) {
  const [text, setText] = useState('')
  const [busy, setBusy] = useState(false)
  const add = async (e: Event) => {
    e.preventDefault()
    if (!text.trim()) return
    setBusy(true)
    try {
      await ok(api.POST('/v1/comments', { body: { card: props.card.id, body: text } }))
      setText('')
      await props.reload()
    } catch (err) {
      toastError(err)
    } finally {
      setBusy(false)
    }
  }
  const remove = (id: string) => ok(api.DELETE('/v1/comments/{id}', { params: { path: { id } } })).then(() => props.reload(), toastError)
  return (
    <section class="detail-section" aria-labelledby="comments-h">
      <h3 id="comments-h">Comments</h3>
      <ol class="comments">
        {props.comments.map((c) => (
          <li key={c.id} class="comment">
            <div class="comment-head">
              <strong>{c.author.name}</strong> <span class="muted small">{when(c.created)}</span>
              {c.author.id === me.value?.id && (
                <button type="button" class="link small" onClick={() => void remove(c.id)}>
                  Delete
                </button>
              )}
            </div>
            <Markdown text={c.body} />
          </li>
        ))}
      </ol>
      <form onSubmit={(e) => void add(e)}>
        <label class="sr-only" for="new-comment">
          Comment
        </label>
        <textarea
          id="new-comment"
          rows={3}
          placeholder="Write a comment (Markdown; @name mentions)"
          value={text}
          onInput={(e) => setText(e.currentTarget.value)}
        />
        <button type="submit" class="primary" disabled={busy}>
          Comment
        </button>
      </form>
    </section>
  )
}

// The inbox: what happened to the cards you are assigned to, watch or were mentioned on; read, unread, all read.
import { useEffect, useState } from 'preact/hooks'
import { api, ok, errorText, type Schemas } from '../api/client'
import { onEvents } from '../live/feed'
import { toastError } from '../store/toast'
import { refreshUnread } from '../ui/header'

const KIND: Record<string, string> = {
  assigned: 'assigned you',
  mentioned: 'mentioned you',
  commented: 'commented',
  completed: 'completed',
  watching: 'changed',
  question: 'asked a question',
  webhook_paused: 'paused a failing webhook:',
}

export function Inbox() {
  const [items, setItems] = useState<Schemas['InboxItem'][] | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [unreadOnly, setUnreadOnly] = useState(false)
  const load = () =>
    ok(api.GET('/v1/inbox', { params: { query: { per_page: 100, ...(unreadOnly ? { unread: 'true' as const } : {}) } } })).then(
      (r) => setItems(r.items),
      (err: unknown) => setError(errorText(err)),
    )
  useEffect(() => {
    void load()
    return onEvents(() => void load())
  }, [unreadOnly])
  const mark = (id: string, read: boolean) =>
    ok(api.PATCH('/v1/inbox/{id}', { params: { path: { id } }, body: { read } })).then(() => Promise.all([load(), refreshUnread()]), toastError)
  const allRead = () => ok(api.POST('/v1/inbox/read-all')).then(() => Promise.all([load(), refreshUnread()]), toastError)
  return (
    <main class="page">
      <h1>Inbox</h1>
      <div class="row">
        <label class="check">
          <input type="checkbox" checked={unreadOnly} onChange={(e) => setUnreadOnly(e.currentTarget.checked)} /> Unread only
        </label>
        <button type="button" onClick={() => void allRead()}>
          Mark all read
        </button>
      </div>
      {error && <p class="error">{error}</p>}
      {items && items.length === 0 && <p class="muted">Nothing here.</p>}
      {items && (
        <ol class="inbox">
          {items.map((i) => (
            <li key={i.id} class={i.read ? 'read' : 'unread'}>
              <div>
                <strong>{i.actor.name}</strong> {KIND[i.kind] ?? i.kind}
                {i.card && (
                  <>
                    {' '}
                    on{' '}
                    <a href={`/cards/${i.card.key}`} onClick={() => void (i.read || mark(i.id, true))}>
                      <span class="card-key">{i.card.key}</span> {i.card.title}
                    </a>
                  </>
                )}
                {i.webhook && (
                  <>
                    {' '}
                    <a href="/settings/webhooks">{i.webhook.name}</a>
                  </>
                )}{' '}
                <span class="muted small">
                  {i.board ? `in ${i.board.name}, ` : ''}
                  {new Date(i.created).toLocaleString()}
                </span>
              </div>
              <button type="button" class="link small" onClick={() => void mark(i.id, !i.read)}>
                Mark {i.read ? 'unread' : 'read'}
              </button>
            </li>
          ))}
        </ol>
      )}
    </main>
  )
}

// The top bar: boards, search, inbox (with the unread count), settings, the theme, signing out.
import { signal } from '@preact/signals'
import { useEffect } from 'preact/hooks'
import { useLocation } from 'preact-iso'
import { api } from '../api/client'
import { feedState, onEvents, stopFeed } from '../live/feed'
import { me, signOut } from '../store/session'
import { toastError } from '../store/toast'
import { toggleTheme } from './theme'

export const unread = signal(0)

export async function refreshUnread(): Promise<void> {
  const r = await api.GET('/v1/inbox/unread')
  if (r.data) unread.value = r.data.unread
}

export function Header() {
  const loc = useLocation()
  useEffect(() => {
    void refreshUnread()
    let pending: number | undefined
    return onEvents((events) => {
      if (!events.some((e) => e.event.startsWith('comment.') || e.event.startsWith('card.') || e.event.startsWith('agent.'))) return
      clearTimeout(pending)
      pending = window.setTimeout(() => void refreshUnread(), 300)
    })
  }, [])
  const out = async () => {
    try {
      stopFeed()
      await signOut()
      loc.route('/login', true)
    } catch (err) {
      toastError(err)
    }
  }
  const here = (p: string) => (loc.path === p || (p !== '/' && loc.path.startsWith(p)) ? 'page' : undefined)
  return (
    <header class="topbar">
      <a class="brand" href="/" aria-label="taskd: boards">
        <svg viewBox="0 0 32 32" width="22" height="22" aria-hidden="true">
          <rect width="32" height="32" rx="6" class="brand-bg" />
          <rect x="6" y="7" width="6" height="18" rx="2" class="brand-fg" />
          <rect x="13" y="7" width="6" height="12" rx="2" class="brand-fg" />
          <rect x="20" y="7" width="6" height="8" rx="2" class="brand-fg" />
        </svg>
        <span class="brand-name">taskd</span>
      </a>
      <nav class="topnav" aria-label="Main">
        <a href="/" aria-current={here('/')}>
          Boards
        </a>
        <a href="/search" aria-current={here('/search')} title="Search (/)">
          Search
        </a>
        <a href="/inbox" aria-current={here('/inbox')}>
          Inbox
          {unread.value > 0 && (
            <span class="badge" aria-label={`${unread.value} unread`}>
              {unread.value}
            </span>
          )}
        </a>
        <a href="/settings" aria-current={here('/settings')}>
          Settings
        </a>
      </nav>
      <div class="topbar-end">
        <span class={`live-dot ${feedState.value}`} title={feedState.value === 'live' ? 'Live updates on' : 'Live updates reconnecting'} />
        <button type="button" class="icon" onClick={toggleTheme} title="Light or dark" aria-label="Switch light or dark">
          ◐
        </button>
        <span class="who" title={me.value?.email}>
          {me.value?.name}
        </span>
        <button type="button" class="link" onClick={() => void out()}>
          Sign out
        </button>
      </div>
    </header>
  )
}

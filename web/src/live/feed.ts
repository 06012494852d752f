// Live updates: one long-poll loop on the change feed (GET /v1/events). The cursor is taken (`after=now`) before the
// first load, so nothing committed in between is missed; each answer's events go to the listeners, which apply them
// idempotently. 410 (the cursor has expired) reloads the page; errors back off from 1 to 30 s; the loop pauses while
// the page is hidden and goes on from its cursor when it is shown again.
import { signal } from '@preact/signals'
import { api } from '../api/client'

export interface FeedEvent {
  id: string
  event: string
  timestamp: string
  data: Record<string, unknown>
}
type Listener = (events: FeedEvent[]) => void

/** The families the web app shows. */
const EVENTS = 'card.*,comment.*,checklist.*,list.*,tag.*,timer.*,agent.*,board.*'
const WAIT_SECONDS = 25

export const feedState = signal<'off' | 'live' | 'retrying'>('off')
const listeners = new Set<Listener>()
let cursor: string | null = null
let started: Promise<void> | null = null
let stopped = false
let current: AbortController | null = null

/** Calls `fn` with each batch of events; returns the function that stops it. */
export function onEvents(fn: Listener): () => void {
  listeners.add(fn)
  return () => listeners.delete(fn)
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const visible = () =>
  document.visibilityState === 'visible'
    ? Promise.resolve()
    : new Promise<void>((resolve) => {
        const on = () => {
          if (document.visibilityState !== 'visible') return
          document.removeEventListener('visibilitychange', on)
          resolve()
        }
        document.addEventListener('visibilitychange', on)
      })

/** Takes the head cursor (call before the first load of data), then starts the loop. Idempotent. */
export function startFeed(): Promise<void> {
  started ??= (async () => {
    stopped = false
    const head = await api.GET('/v1/events', { params: { query: { after: 'now' } } })
    if (!head.data) {
      started = null
      return
    }
    cursor = head.data.next
    feedState.value = 'live'
    void loop()
  })()
  return started
}

export function stopFeed(): void {
  stopped = true
  started = null
  current?.abort()
  feedState.value = 'off'
}

async function loop(): Promise<void> {
  let backoff = 1000
  while (!stopped) {
    await visible()
    if (stopped) break
    current = new AbortController()
    try {
      const answer = await api.GET('/v1/events', {
        params: { query: { after: cursor!, wait: WAIT_SECONDS, events: EVENTS, limit: 500 } },
        signal: current.signal,
      })
      if (answer.response.status === 410) {
        location.reload()
        return
      }
      if (answer.response.status === 401) {
        stopFeed()
        return
      }
      if (!answer.data) throw new Error(`feed answered ${answer.response.status}`)
      cursor = answer.data.next
      feedState.value = 'live'
      backoff = 1000
      if (answer.data.items.length) for (const fn of listeners) fn(answer.data.items as FeedEvent[])
    } catch {
      if (stopped) break
      feedState.value = 'retrying'
      await sleep(backoff)
      backoff = Math.min(backoff * 2, 30_000)
    }
  }
}

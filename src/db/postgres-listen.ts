// The one LISTEN connection of a process on PostgreSQL: a pg.Client of its own, outside the pool (LISTEN belongs to a
// session, so it needs a direct connection even when queries go through a transaction pooler), listening on every wake
// channel. When it drops it reconnects with backoff, and then wakes every channel once: what was notified meanwhile
// is found by that round (and by the polls in any case). Closed on shutdown.
import pg from 'pg'
import { channelOf, decodeWake, pgChannel, WAKE_CHANNELS, type Wakes } from './wakes.js'

const FIRST_RETRY_MS = 100
const LAST_RETRY_MS = 10_000

export class WakeListener {
  private client?: pg.Client
  private closed = false
  private failures = 0
  private retry?: NodeJS.Timeout
  /** Resolves when the first connection listens (or failed); tests and startup may wait for it. */
  ready: Promise<void> = Promise.resolve()

  constructor(
    private readonly url: string,
    private readonly wakes: Wakes,
    private readonly log: (msg: string, err?: unknown) => void,
  ) {}

  start(): void {
    this.ready = this.connect(false)
  }

  private async connect(again: boolean): Promise<void> {
    if (this.closed) return
    const client = new pg.Client({ connectionString: this.url, application_name: 'taskd-listen' })
    this.client = client
    let dropped = false
    const drop = (err?: unknown) => {
      if (dropped) return
      dropped = true
      if (this.client === client) this.client = undefined
      client.removeAllListeners('notification')
      client.end().catch(() => {})
      if (this.closed) return
      this.failures++
      if (this.failures === 1) this.log('the PostgreSQL LISTEN connection failed; reconnecting (workers poll meanwhile)', err)
      const delay = Math.min(LAST_RETRY_MS, FIRST_RETRY_MS * 2 ** (this.failures - 1))
      this.retry = setTimeout(() => void this.connect(true), delay * (0.5 + Math.random() / 2))
      this.retry.unref()
    }
    client.on('error', drop)
    client.on('end', () => drop(new Error('the connection ended')))
    client.on('notification', (msg) => {
      const channel = channelOf(msg.channel)
      const wake = msg.payload === undefined ? undefined : decodeWake(msg.payload)
      if (!channel || !wake || wake.processId === this.wakes.processId) return // its own commits woke it already
      this.wakes.deliver(channel, wake.items, this.log)
    })
    try {
      await client.connect()
      await client.query(WAKE_CHANNELS.map((c) => `LISTEN ${pgChannel(c)}`).join('; '))
    } catch (err) {
      drop(err)
      return
    }
    if (this.closed) {
      await client.end().catch(() => {})
      return
    }
    if (this.failures > 0) this.log('the PostgreSQL LISTEN connection is back')
    this.failures = 0
    if (again) this.wakes.deliverAll(this.log)
  }

  async close(): Promise<void> {
    this.closed = true
    clearTimeout(this.retry)
    const client = this.client
    this.client = undefined
    if (client) {
      client.removeAllListeners('end')
      client.on('error', () => {})
      await client.end().catch(() => {})
    }
  }
}

// A few worker threads, each with its own read-only connection, so a slow read never stalls the event loop or other
// reads. A read past its deadline is stopped by terminating its worker (a new one takes its place) and answers 503.
import { Worker } from 'node:worker_threads'
import { HttpError } from '../errors.js'

interface Job {
  id: number
  sql: string
  params: unknown[]
  resolve: (rows: unknown[]) => void
  reject: (err: Error) => void
}
interface Slot {
  worker: Worker
  job?: Job
  timer?: NodeJS.Timeout
}

const workerFile = new URL('./read-worker.js', import.meta.url)

export const queryTimeout = (ms: number) =>
  new HttpError(503, 'query_timeout', `The query took longer than ${ms} ms and was stopped; narrow the filter or ask for a smaller page.`, undefined, {
    'Retry-After': '1',
  })

export class ReadPool {
  private readonly slots: Slot[] = []
  private readonly queue: Job[] = []
  private nextId = 1
  private closed = false

  constructor(
    private readonly file: string,
    private readonly size: number,
    private readonly timeoutMs: number,
  ) {}

  all(sql: string, params: unknown[]): Promise<unknown[]> {
    if (this.closed) return Promise.reject(new Error('the read pool is closed'))
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, sql, params, resolve, reject })
      this.dispatch()
    })
  }

  /** Workers start on first use, so a server that is only written to never loads them. */
  private dispatch(): void {
    while (this.queue.length > 0) {
      let slot = this.slots.find((s) => !s.job)
      if (!slot && this.slots.length < this.size) slot = this.spawn()
      if (!slot) return
      const job = this.queue.shift()!
      slot.job = job
      slot.timer = setTimeout(() => this.timeOut(slot), this.timeoutMs)
      slot.worker.postMessage({ id: job.id, sql: job.sql, params: job.params })
    }
  }

  private spawn(): Slot {
    const slot: Slot = { worker: new Worker(workerFile, { workerData: { file: this.file } }) }
    slot.worker.unref()
    slot.worker.on('message', (msg: { id: number; rows?: unknown[]; error?: string }) => {
      const job = slot.job
      if (!job || job.id !== msg.id) return
      this.finish(slot)
      if (msg.error !== undefined) job.reject(new Error(msg.error))
      else job.resolve(msg.rows!)
    })
    slot.worker.on('error', (err) => {
      const job = slot.job
      this.replace(slot)
      job?.reject(err)
    })
    this.slots.push(slot)
    return slot
  }

  private finish(slot: Slot): void {
    clearTimeout(slot.timer)
    slot.job = undefined
    slot.timer = undefined
    this.dispatch()
  }

  private timeOut(slot: Slot): void {
    const job = slot.job
    this.replace(slot)
    job?.reject(queryTimeout(this.timeoutMs))
  }

  /** A worker stuck in a query cannot be interrupted from here: it is terminated and a fresh one takes the next job. */
  private replace(slot: Slot): void {
    clearTimeout(slot.timer)
    slot.job = undefined
    this.slots.splice(this.slots.indexOf(slot), 1)
    slot.worker.removeAllListeners()
    void slot.worker.terminate()
    if (!this.closed) this.dispatch()
  }

  async close(): Promise<void> {
    this.closed = true
    for (const job of this.queue.splice(0)) job.reject(new Error('the read pool is closed'))
    await Promise.all(
      this.slots.splice(0).map((s) => {
        clearTimeout(s.timer)
        s.job?.reject(new Error('the read pool is closed'))
        return s.worker.terminate()
      }),
    )
  }
}

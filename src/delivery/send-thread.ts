// The outbox scheduler's attempts go out on a worker thread (send-worker.ts): sockets, HTTP parsing and response
// reading never take turns with the event loop that creates cards and holds the one write connection, which only
// signs, judges and records. Requests of one turn travel in one message, and so do results.
import { Worker } from 'node:worker_threads'
import { asset, checkoutUrl, inBinary } from '../assets.js'
import type { SendRequest, SendResult } from './send.js'

/** An attempt as the sender gets it: the sender brings its own agent. */
export type Attempt = Omit<SendRequest, 'dispatcher'>

/** Performs attempts; `close` frees its sockets: attempts still in flight fail, later ones are refused. */
export interface Sender {
  /** Gets ready ahead of the first attempt (a thread's boot would otherwise add ~150 ms to the first batch). */
  start(): void
  send(req: Attempt): Promise<SendResult>
  close(): Promise<void>
}

interface Waiting {
  resolve: (r: SendResult) => void
  reject: (err: Error) => void
}

/** The thread's script: dist/src/delivery/send-worker.js, or in the single binary its bundle, an asset (build-binary.mjs). */
const startWorker = () =>
  inBinary ? new Worker(asset('dist/binary/send-worker.cjs').toString('utf8'), { eval: true }) : new Worker(checkoutUrl('dist/src/delivery/send-worker.js'))

/**
 * One worker thread, started by start() (the scheduler's, where a subscription is active) or else by the first attempt
 * (its boot, ~150 ms, then delays that first batch): a thread and its HTTP client hold some 35 MB, which a server
 * without webhooks does not need. A thread that dies (it never should: sendWebhook does not throw) fails the attempts
 * it had, which keep their lease and come back like those of a crashed process; the next attempt starts a new thread.
 */
export class SendThread implements Sender {
  private worker?: Worker
  private nextId = 1
  private readonly waiting = new Map<number, Waiting>()
  private outgoing: [number, Attempt][] = []
  private closed = false

  /** Whether a thread is running now (tests read it). */
  get running(): boolean {
    return this.worker !== undefined
  }

  start(): void {
    if (this.closed || this.worker) return
    this.worker = this.spawn()
    this.worker.unref()
  }

  send(req: Attempt): Promise<SendResult> {
    if (this.closed) return Promise.reject(new Error('the webhook sending thread is closed'))
    const id = this.nextId++
    // Posted once the attempts started in this run of the event loop have queued theirs: no turn of the loop is lost.
    if (this.outgoing.push([id, req]) === 1) queueMicrotask(() => this.post())
    return new Promise((resolve, reject) => this.waiting.set(id, { resolve, reject }))
  }

  private post(): void {
    const batch = this.outgoing
    this.outgoing = []
    if (batch.length === 0) return
    const worker = (this.worker ??= this.spawn())
    // Held open only while attempts are out, so an idle thread never keeps the process alive.
    worker.ref()
    worker.postMessage(batch)
  }

  private spawn(): Worker {
    const worker = startWorker()
    worker.on('message', (results: [number, SendResult][]) => {
      for (const [id, result] of results) {
        this.waiting.get(id)?.resolve(result)
        this.waiting.delete(id)
      }
      if (this.waiting.size === 0) worker.unref()
    })
    const lost = (err: Error) => {
      if (this.worker !== worker) return
      this.worker = undefined
      this.fail(err)
    }
    worker.on('error', (err) => lost(err))
    worker.on('exit', (code) => lost(new Error(`the webhook sending thread stopped (exit code ${code})`)))
    return worker
  }

  private fail(err: Error): void {
    const waiting = [...this.waiting.values()]
    this.waiting.clear()
    for (const w of waiting) w.reject(err)
  }

  /** Stops the thread for good: the attempts it had fail, and so does any attempt asked for later. */
  async close(): Promise<void> {
    this.closed = true
    this.outgoing = []
    await this.worker?.terminate()
    this.fail(new Error('the webhook sending thread was stopped')) // those not posted yet
  }
}

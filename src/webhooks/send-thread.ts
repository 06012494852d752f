// The outbox scheduler's attempts go out on a worker thread (send-worker.ts): sockets, HTTP parsing and response
// reading never take turns with the event loop that creates cards and holds the one write connection, which only
// signs, judges and records. Requests of one turn travel in one message, and so do results.
import { Worker } from 'node:worker_threads'
import { asset, inBinary } from '../assets.js'
import type { Agent } from 'undici'
import { sendWebhook, type SendRequest, type SendResult } from './send.js'

/** Performs attempts; `terminate` frees its sockets (a thread's attempts still in flight then fail). */
export interface Sender {
  /** Gets ready ahead of the first attempt (a thread's boot would otherwise add ~150 ms to the first deliveries). */
  start(): void
  send(req: Omit<SendRequest, 'dispatcher'>): Promise<SendResult>
  terminate(): Promise<void>
}

interface Waiting {
  resolve: (r: SendResult) => void
  reject: (err: Error) => void
}

/** The thread's script: send-worker.js beside this file, or in the single binary its bundle, an asset (build-binary.mjs). */
const startWorker = () =>
  inBinary ? new Worker(asset('dist/binary/send-worker.cjs').toString('utf8'), { eval: true }) : new Worker(new URL('./send-worker.js', import.meta.url))

/**
 * One worker thread, started by start() or the first attempt. A thread that dies (it never should: sendWebhook does not
 * throw) fails the attempts it had, which keep their lease and come back like those of a crashed process; the next
 * attempt starts a new thread.
 */
export class SendThread implements Sender {
  private worker?: Worker
  private nextId = 1
  private readonly waiting = new Map<number, Waiting>()
  private outgoing: [number, Omit<SendRequest, 'dispatcher'>][] = []

  start(): void {
    this.worker ??= this.spawn()
    if (this.waiting.size === 0) this.worker.unref()
  }

  send(req: Omit<SendRequest, 'dispatcher'>): Promise<SendResult> {
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

  /** Stops the thread as a crash would (its 'exit' fails the attempts it had); the next attempt starts a new one. */
  async terminate(): Promise<void> {
    this.outgoing = []
    await this.worker?.terminate()
    this.fail(new Error('the webhook sending thread was stopped')) // those not posted yet
  }
}

/** Attempts on the calling thread through the given agent: for tests whose fake resolver (a function) cannot cross to a thread. */
export const senderThrough = (agent: Agent): Sender => ({
  start: () => {},
  send: (req) => sendWebhook({ ...req, dispatcher: agent }),
  terminate: () => agent.close(),
})

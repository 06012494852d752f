// A few read processes, each with its own read-only connection, so a slow read never stalls the event loop or other
// reads. A read past its deadline is stopped by killing its process (a new one takes its place) and answers 503; a read
// whose process dies or cannot start answers 503 too.
import type { ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { checkoutUrl, inBinary } from '../assets.js'
import { HttpError } from '../errors.js'
import { queryTimeout } from './database.js'

/** A statement for a read process. */
export interface ReadStatement {
  sql: string
  params: unknown[]
}
interface Job {
  id: number
  queuedAt: number
  statements: ReadStatement[]
  resolve: (rows: unknown[][]) => void
  reject: (err: Error) => void
}
/** A job sent to a process; `withdrawn`: taken back (it waited too long behind a slow read) and answered elsewhere. */
interface Sent {
  job: Job
  withdrawn: boolean
  waitTimer?: NodeJS.Timeout
}
interface Slot {
  child: ChildProcess
  /** In the order sent: the first runs, the one after it (at most one) waits in the process's channel. */
  sent: Sent[]
  timer?: NodeJS.Timeout
}

/**
 * What runs a read process: read-worker.js with this process's V8 settings (bin/v8-flags.js: the young generation's
 * limit, optimizing compiles on the main thread), or in the single binary the binary itself (src/binary.ts sees
 * TASKD_READ_DB and an IPC channel), which applies its own settings.
 */
const V8_SETTINGS = /^--(max-semi-space-size=|no-concurrent-recompilation$)/
const workerArgs = inBinary ? [] : [...process.execArgv.filter((a) => V8_SETTINGS.test(a)), fileURLToPath(checkoutUrl('dist/src/db/read-worker.js'))]

/**
 * How long a read waits for a busy process before another starts (up to the pool's size). Reads of a few milliseconds,
 * even many at once, then share one process (some 15 MB); behind a slow read, the others wait this long, and the start
 * of a new process (unless every process the pool may have is busy with one). A process, once started, stays.
 */
export const SPAWN_AFTER_MS = 100

export class ReadPool {
  private readonly slots: Slot[] = []
  private readonly queue: Job[] = []
  private nextId = 1
  private closed = false
  private spawnTimer: NodeJS.Timeout | undefined

  constructor(
    private readonly file: string,
    private readonly size: number,
    private readonly timeoutMs: number,
    private readonly spawnAfterMs = SPAWN_AFTER_MS,
  ) {}

  /**
   * The rows of each statement, run one after the other by one process, within the deadline times the statements: a
   * page and its total cost one message and its answer, where two would leave the process idle while the event loop
   * handles the first answer.
   */
  all(statements: ReadStatement[]): Promise<unknown[][]> {
    if (this.closed) return Promise.reject(new Error('the read pool is closed'))
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, queuedAt: performance.now(), statements, resolve, reject })
      this.dispatch()
    })
  }

  /**
   * The first process starts with the first read (a server that is only written to starts none), others as reads wait.
   * A read goes to an idle process, else behind the one read of a busy process: it is then sent already, so the process
   * starts it as soon as it answers the first, instead of idling until the event loop handles that answer. A read
   * that waited spawnAfterMs there (behind a slow read) is taken back and goes to another process (see withdraw).
   */
  private dispatch(): void {
    while (this.queue.length > 0) {
      let slot = this.slots.find((s) => s.sent.length === 0 && s.child.connected)
      if (!slot && this.slots.length === 0) slot = this.spawn()
      if (!slot && performance.now() - this.queue[0].queuedAt < this.spawnAfterMs)
        slot = this.slots.find((s) => s.sent.length === 1 && !s.sent[0].withdrawn && s.child.connected)
      if (!slot) return this.spawnWhenWaiting()
      const sent: Sent = { job: this.queue.shift()!, withdrawn: false }
      slot.sent.push(sent)
      if (slot.sent.length === 1) this.startDeadline(slot)
      else sent.waitTimer = setTimeout(() => this.withdraw(slot, sent), Math.max(0, this.spawnAfterMs - (performance.now() - sent.job.queuedAt))).unref()
      slot.child.send({ id: sent.job.id, statements: sent.job.statements })
    }
  }

  /**
   * The deadline of the read a process now runs (the first it was sent): each statement keeps the one it would have
   * alone. A withdrawn read gets one too: the process may run it anyway, and killing it is the only way to stop it.
   */
  private startDeadline(slot: Slot): void {
    const head = slot.sent[0]
    clearTimeout(head.waitTimer)
    slot.timer = setTimeout(() => this.timeOut(slot), this.timeoutMs * head.job.statements.length).unref()
  }

  /**
   * Takes a read back that still waits behind another: the process is told to skip it (it answers `skipped`, or, had
   * it started it already, its rows, which are ignored), and the read goes first in the queue, where it starts another
   * process as any read that waited that long does, or goes to a process that is idle. With every process the pool may
   * have busy, it stays where it is (until one is idle: see the answer handler in spawn).
   */
  private withdraw(slot: Slot, sent: Sent): void {
    if (sent.withdrawn || slot.sent[0] === sent || !slot.sent.includes(sent)) return
    if (this.slots.length >= this.size && !this.slots.some((s) => s.sent.length === 0 && s.child.connected)) return
    sent.withdrawn = true
    clearTimeout(sent.waitTimer)
    slot.child.send({ skip: sent.job.id })
    this.queue.unshift(sent.job)
    this.dispatch()
  }

  /** Starts another process once the oldest waiting read has waited spawnAfterMs, unless a process is free by then. */
  private spawnWhenWaiting(): void {
    if (this.spawnTimer || this.slots.length >= this.size) return
    const waited = performance.now() - this.queue[0].queuedAt
    this.spawnTimer = setTimeout(
      () => {
        this.spawnTimer = undefined
        if (this.closed || this.queue.length === 0) return
        if (performance.now() - this.queue[0].queuedAt >= this.spawnAfterMs && this.slots.length < this.size) this.spawn()
        this.dispatch()
      },
      Math.max(0, this.spawnAfterMs - waited),
    )
    this.spawnTimer.unref()
  }

  private spawn(): Slot {
    // child_process (with net and streams) is loaded by the first pool that starts a process, not by every command.
    const { spawn } = process.getBuiltinModule('node:child_process')
    const child = spawn(process.execPath, workerArgs, {
      env: { ...process.env, TASKD_READ_DB: this.file },
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    })
    const slot: Slot = { child, sent: [] }
    // The pool never keeps the server alive: shutting down disconnects the channel and the process exits.
    child.unref()
    child.channel?.unref()
    child.on('message', (msg: { id: number; rows?: unknown[][]; error?: string }) => {
      const head = slot.sent[0]
      if (!head || head.job.id !== msg.id) return
      clearTimeout(slot.timer)
      slot.sent.shift()
      if (slot.sent.length > 0) this.startDeadline(slot)
      if (!head.withdrawn) {
        if (msg.rows) head.job.resolve(msg.rows)
        else head.job.reject(new Error(msg.error ?? 'the read process skipped a read it was not told to skip'))
      }
      this.dispatch()
      // Idle with nothing queued: a read waiting behind another process's read comes here instead.
      if (slot.sent.length === 0) {
        const other = this.slots.find((s) => s.sent.length === 2 && !s.sent[1].withdrawn)
        if (other) this.withdraw(other, other.sent[1])
      }
    })
    // A process that died, or whose channel broke, is replaced; its read (if any) fails instead of waiting forever.
    // These listeners stay after the slot leaves the pool (they ignore it then): an 'error' without a listener, such
    // as the EPIPE of a send to a process that could not even start, would end the server.
    const lost = (why: string) => {
      if (!this.slots.includes(slot)) return
      this.replace(slot)?.reject(new HttpError(503, 'unavailable', `The read could not run (${why}); try again.`, undefined, { 'Retry-After': '1' }))
    }
    child.on('exit', () => lost('a read process exited unexpectedly'))
    child.on('error', (err) => lost(`a read process failed: ${err.message}`))
    this.slots.push(slot)
    return slot
  }

  private timeOut(slot: Slot): void {
    this.replace(slot)?.reject(queryTimeout(this.timeoutMs))
  }

  /**
   * Kills a slot's process (a statement cannot be interrupted any other way) and lets a fresh one take the next job.
   * Returns the read it ran, if that is still to be answered; the read waiting behind it goes first in the queue again.
   */
  private replace(slot: Slot): Job | undefined {
    clearTimeout(slot.timer)
    const [head, ...waiting] = slot.sent.splice(0)
    for (const sent of waiting) clearTimeout(sent.waitTimer)
    this.queue.unshift(...waiting.filter((w) => !w.withdrawn).map((w) => w.job))
    this.slots.splice(this.slots.indexOf(slot), 1)
    slot.child.kill('SIGKILL')
    if (!this.closed) this.dispatch()
    return head && !head.withdrawn ? head.job : undefined
  }

  async close(): Promise<void> {
    this.closed = true
    clearTimeout(this.spawnTimer)
    const closed = new Error('the read pool is closed')
    for (const job of this.queue.splice(0)) job.reject(closed)
    for (const slot of this.slots.splice(0)) {
      clearTimeout(slot.timer)
      const busy = slot.sent.length > 0
      for (const sent of slot.sent.splice(0)) {
        clearTimeout(sent.waitTimer)
        if (!sent.withdrawn) sent.job.reject(closed)
      }
      // An idle process exits when its channel closes; a busy one is killed.
      if (busy || !slot.child.connected) slot.child.kill('SIGKILL')
      else slot.child.disconnect()
    }
  }
}

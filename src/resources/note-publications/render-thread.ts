// Markdown of published notes is rendered on a worker thread, never on the event loop: a body of untrusted Markdown can
// take markdown-it seconds (1 MB of `![` took 8 s), which on the main thread would stall every other request. Each
// render has a deadline; a thread that passes it is ended (the next render starts a new one) and the body is shown as
// plain text instead. Bodies over RENDERED_BYTES are shown as plain text without being rendered at all.
import { Worker } from 'node:worker_threads'
import { asset, checkoutUrl, inBinary } from '../../assets.js'

/** Longest Markdown rendered; a longer body is shown as plain text. */
export const RENDERED_BYTES = 262_144
/** How long one render may take on the thread. */
export const RENDER_DEADLINE_MS = 2000
/** Renders waiting for the thread at most; past it a body is shown as plain text at once (and tried again next time). */
const WAITING_AT_MOST = 32

/** The thread's script: dist/src/.../render-worker.js, or in the single binary its bundle, an asset (build-binary.mjs). */
const startWorker = () =>
  inBinary
    ? new Worker(asset('dist/binary/render-worker.cjs').toString('utf8'), { eval: true })
    : new Worker(checkoutUrl('dist/src/resources/note-publications/render-worker.js'))

/** `html` is null when the body could not be rendered in time; `final` says whether that answer may be kept. */
export interface Rendered {
  html: string | null
  final: boolean
}

interface Job {
  body: string
  resolve: (r: Rendered) => void
}

/** One rendering thread, started by the first render, with renders one at a time, each under its deadline. */
export class RenderThread {
  private worker?: Worker
  private current?: { id: number; job: Job; timer: NodeJS.Timeout }
  private readonly queue: Job[] = []
  private nextId = 1
  private closed = false

  render(body: string): Promise<Rendered> {
    if (Buffer.byteLength(body) > RENDERED_BYTES) return Promise.resolve({ html: null, final: true })
    if (this.closed || this.queue.length >= WAITING_AT_MOST) return Promise.resolve({ html: null, final: false })
    return new Promise((resolve) => {
      this.queue.push({ body, resolve })
      this.next()
    })
  }

  /** Ends the thread; renders waiting or under way answer plain text. */
  async close(): Promise<void> {
    this.closed = true
    for (const job of this.queue.splice(0)) job.resolve({ html: null, final: false })
    this.settle(null, false)
    const worker = this.worker
    this.worker = undefined
    await worker?.terminate()
  }

  private next(): void {
    if (this.current || this.queue.length === 0) return
    const job = this.queue.shift()!
    const id = this.nextId++
    const worker = this.thread()
    // Past its deadline a render is abandoned with its thread: a body that stalls markdown-it is not rendered again.
    const timer = setTimeout(() => {
      if (this.worker === worker) {
        this.worker = undefined
        void worker.terminate()
      }
      this.settle(null, true, id)
    }, RENDER_DEADLINE_MS)
    this.current = { id, job, timer }
    // Held while it renders (a page is waiting on it), let go when idle so an idle thread never keeps a process alive.
    worker.ref()
    worker.postMessage({ id, body: job.body })
  }

  private settle(html: string | null, final: boolean, id?: number): void {
    const current = this.current
    if (!current || (id !== undefined && id !== current.id)) return
    clearTimeout(current.timer)
    this.current = undefined
    current.job.resolve({ html, final })
    if (this.queue.length === 0) this.worker?.unref()
    this.next()
  }

  private thread(): Worker {
    if (this.worker) return this.worker
    const worker = startWorker()
    worker.unref()
    worker.on('message', ({ id, html }: { id: number; html: string | null }) => this.settle(html, true, id))
    // A thread that fails or exits answers its render as plain text (not kept: it may work next time).
    worker.on('error', () => this.lose(worker))
    worker.on('exit', () => this.lose(worker))
    this.worker = worker
    return worker
  }

  private lose(worker: Worker): void {
    if (this.worker !== worker) return
    this.worker = undefined
    void worker.terminate()
    this.settle(null, false)
  }
}

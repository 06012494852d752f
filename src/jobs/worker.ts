// The face a job runner's user shows server.ts, readiness and tests: start, wake, runOnce, stop, and its pump.
import type { JobRunner } from './runner.js'

export abstract class JobWorker<T extends { id: string }> {
  protected abstract readonly jobs: JobRunner<T>

  /** Claims one round at a time; readiness asks it whether the worker is alive. */
  get pump() {
    return this.jobs.pump
  }

  /** Starts claiming: now, after each wake(), and on the poll. */
  start(): void {
    this.jobs.start()
  }

  /** Called after a commit that queued jobs (a hook on Deps); claims on the next turn of the event loop. */
  wake(): void {
    this.jobs.wake()
  }

  /** Test driver: runs everything due at the clock's current time and waits until it is recorded. */
  runOnce(): Promise<number> {
    return this.jobs.runOnce()
  }

  /** Stops claiming, hands back unstarted claims; jobs in flight get `graceMs` (one unfinished keeps its lease). */
  stop(graceMs = 10_000): Promise<void> {
    return this.jobs.stop(graceMs)
  }
}

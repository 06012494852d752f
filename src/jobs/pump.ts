// The wake-up of a job runner: after wake(), `work` runs on the next turn of the event loop, one run at a time (a wake
// during a run makes it run once more afterwards), and a poll wakes it as a safety net.
export class Pump {
  private on = false
  private ended = false
  private queued = false
  private current: Promise<number> | undefined
  private again = false
  private timer?: NodeJS.Timeout
  /** performance.now() when the last run ended, or when the pump started. */
  private lastRound = 0

  constructor(private readonly work: () => Promise<number>) {}

  /** Wakes now and every `pollMs`; a no-op once started or stopped. */
  start(pollMs: number): void {
    if (this.on || this.ended) return
    this.on = true
    this.lastRound = performance.now()
    this.timer = setInterval(() => this.wake(), pollMs)
    this.timer.unref()
    this.wake()
  }

  /** Whether it was started and not stopped (a worker driven by hand through run() never is). */
  get started(): boolean {
    return this.on && !this.ended
  }

  /** Started, not stopped, and a run ended within the last `ms` (readiness: a worker stopped or stuck in a run is not alive). */
  alive(ms: number): boolean {
    return this.started && performance.now() - this.lastRound < ms
  }

  wake(): void {
    if (!this.started || this.queued) return
    this.queued = true
    setImmediate(() => {
      this.queued = false
      void this.run()
    })
  }

  /** Runs `work` now, or joins the run in progress (which then runs once more); resolves to what that run returned. */
  run(): Promise<number> {
    if (this.current) {
      this.again = true
      return this.current
    }
    this.current = this.work().finally(() => {
      this.current = undefined
      this.lastRound = performance.now()
      if (this.again) {
        this.again = false
        this.wake()
      }
    })
    return this.current
  }

  /** A run that starts after the one in progress, if any, has ended (a run joined mid-way may have missed a change). */
  async runNext(): Promise<number> {
    await this.current
    return this.run()
  }

  /** No wake-ups from now on; resolves once the run in progress, if any, has ended. */
  async stop(): Promise<void> {
    this.ended = true
    clearInterval(this.timer)
    await this.current
  }
}

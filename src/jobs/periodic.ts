// A job that time alone makes due (housekeeping): a pass at start and then every `everyMs`, passes never overlapping,
// and stop() waiting for the pass in progress, which is told to stop early.
import { Pump } from './pump.js'

export class PeriodicJob {
  private readonly pump = new Pump(() => this.pass())
  private stopping = false

  constructor(
    private readonly everyMs: number,
    /** One pass; it checks `stopping()` between chunks of work. A throw is logged and the next pass tries again. */
    private readonly work: (stopping: () => boolean) => Promise<void>,
    private readonly onError: (err: unknown) => void,
  ) {}

  start(): void {
    this.pump.start(this.everyMs)
  }

  /** One pass, after the one running. */
  async runOnce(): Promise<void> {
    await this.pump.runNext()
  }

  private async pass(): Promise<number> {
    if (this.stopping) return 0
    try {
      await this.work(() => this.stopping)
    } catch (err) {
      try {
        this.onError(err)
      } catch {
        // a logger that throws must not break every later pass
      }
    }
    return 1
  }

  /** No pass starts after this; the one running is told to stop and awaited. */
  async stop(): Promise<void> {
    this.stopping = true
    await this.pump.stop()
  }
}

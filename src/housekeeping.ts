// Upkeep that time alone makes due, run by `serve` at start and then every hour: today, deleting for good the boards
// whose purge_at has come (30 days in the trash, or a permanent delete a crash interrupted). Passes never overlap;
// stop() waits for the one running, which stops before its next chunk of cards.
import type { Deps } from './deps.js'
import { purgeTrashedBoards } from './resources/boards/service.js'

const EVERY_MS = 3600_000

export class Housekeeping {
  private timer?: NodeJS.Timeout
  private pass: Promise<void> = Promise.resolve()
  private stopped = false

  constructor(
    private readonly deps: Deps,
    private readonly log: (msg: string, err?: unknown) => void,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.runOnce(), EVERY_MS)
    this.timer.unref()
    void this.runOnce()
  }

  /** One pass, after the one running; an error is logged and the next pass tries again. */
  runOnce(): Promise<void> {
    this.pass = this.pass
      .then(async () => {
        if (this.stopped) return
        try {
          await purgeTrashedBoards(this.deps, () => this.stopped, this.log)
        } catch (err) {
          this.log('housekeeping: purging the trash failed', err)
        }
      })
      .catch(() => {}) // a logger that throws must not break every later pass
    return this.pass
  }

  /** No pass starts after this; the one running stops before its next chunk of cards (the next start finishes the board). */
  async stop(): Promise<void> {
    this.stopped = true
    clearInterval(this.timer)
    await this.pass
  }
}

// Upkeep that time alone makes due, run by `serve` at start and then every hour: today, deleting for good the boards
// that have been in the trash for 30 days. Passes never overlap; stop() waits for the one running.
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
    this.pass = this.pass.then(async () => {
      if (this.stopped) return
      try {
        await purgeTrashedBoards(this.deps, () => this.stopped)
      } catch (err) {
        this.log('housekeeping: purging the trash failed', err)
      }
    })
    return this.pass
  }

  /** No pass starts after this; the one running stops before its next chunk of cards (the next start finishes the board). */
  async stop(): Promise<void> {
    this.stopped = true
    clearInterval(this.timer)
    await this.pass
  }
}

// Upkeep that time alone makes due, run by `serve` at start and then every hour: today, deleting for good the boards
// whose purge_at has come (30 days in the trash, or a permanent delete a crash interrupted). Passes never overlap;
// stop() waits for the one running, which stops before its next chunk of cards.
import type { Deps } from './deps.js'
import { PeriodicJob } from './jobs/periodic.js'
import { purgeTrashedBoards } from './resources/boards/service.js'

const EVERY_MS = 3600_000

export class Housekeeping {
  private readonly job: PeriodicJob

  constructor(deps: Deps, log: (msg: string, err?: unknown) => void) {
    this.job = new PeriodicJob(
      EVERY_MS,
      async (stopping) => void (await purgeTrashedBoards(deps, stopping, log)),
      (err) => log('housekeeping: purging the trash failed', err),
    )
  }

  start(): void {
    this.job.start()
  }

  /** One pass, after the one running; an error is logged and the next pass tries again. */
  runOnce(): Promise<void> {
    return this.job.runOnce()
  }

  /** No pass starts after this; the one running stops before its next chunk of cards (the next start finishes the board). */
  stop(): Promise<void> {
    return this.job.stop()
  }
}

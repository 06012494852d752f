// Upkeep that time alone makes due, run by `serve` at start and then every hour: deleting for good the boards whose
// purge_at has come (30 days in the trash, or a permanent delete a crash interrupted), the pending files that an
// upload cut short by a crash left (a day old), and the audit entries past TASKD_AUDIT_RETENTION_DAYS. Passes never
// overlap; stop() waits for the one running, which stops before its next chunk of cards or entries.
import type { Deps } from './deps.js'
import { PeriodicJob } from './jobs/periodic.js'
import { purgeTrashedBoards } from './resources/boards/service.js'
import { purgeStalePendingFiles } from './resources/files/service.js'
import { pruneAuditLog } from './resources/audit/service.js'

const EVERY_MS = 3600_000

export class Housekeeping {
  private readonly job: PeriodicJob

  constructor(deps: Deps, log: (msg: string, err?: unknown) => void) {
    this.job = new PeriodicJob(
      EVERY_MS,
      async (stopping) => {
        await purgeTrashedBoards(deps, stopping, log)
        if (!stopping()) await purgeStalePendingFiles(deps)
        if (!stopping()) await pruneAuditLog(deps, stopping)
      },
      (err) => log('housekeeping: purging the trash, stale files or old audit entries failed', err),
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

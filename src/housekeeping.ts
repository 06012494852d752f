// Upkeep that time alone makes due, run by `serve` at start and then every hour: deleting for good the boards whose
// purge_at has come (30 days in the trash, or a permanent delete a crash interrupted), the pending files that an
// upload cut short by a crash left (a day old), the events the log keeps no longer (TASKD_EVENT_RETENTION_DAYS), the
// audit entries past TASKD_AUDIT_RETENTION_DAYS, the secrets before a rotation whose overlap has ended (signing stopped
// using them at the end of the overlap; this forgets them), and merging the search index's segments into one (SQLite).
// Passes never overlap; stop() waits for the one running, which stops before its next chunk of cards, events, entries
// or merge step.
import type { Deps } from './deps.js'
import { PeriodicJob } from './jobs/periodic.js'
import { purgeTrashedBoards } from './resources/boards/service.js'
import { purgeStalePendingFiles } from './resources/files/service.js'
import { pruneEventLog } from './resources/change-feed/service.js'
import { forgetRotatedSigningSecrets } from './resources/signing-secrets/service.js'
import { forgetRotatedWebhookSecrets } from './resources/webhooks/service.js'
import { compactSearchIndex } from './resources/search/service.js'
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
        if (!stopping()) await pruneEventLog(deps, stopping)
        if (!stopping()) await pruneAuditLog(deps, stopping)
        if (!stopping()) await forgetRotatedWebhookSecrets(deps)
        if (!stopping()) await forgetRotatedSigningSecrets(deps)
        if (!stopping()) await compactSearchIndex(deps, stopping)
      },
      (err) => log('housekeeping: the pass failed (the next one tries again)', err),
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

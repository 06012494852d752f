// Group commit: writes queued in the same turn of the event loop go to the database in one transaction, and each
// caller's promise settles once that transaction has committed (a commit per row costs about as much as the row).
import type { Db, Tx } from './database.js'

interface Queued<T> {
  item: T
  resolve: () => void
  reject: (err: unknown) => void
}

export class WriteBatch<T> {
  private queue: Queued<T>[] = []
  private scheduled = false

  constructor(
    private readonly db: Db,
    private readonly write: (tx: Tx, items: readonly T[]) => Promise<void>,
  ) {}

  /** Resolves once the item is committed. */
  add(item: T): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject })
      if (this.scheduled) return
      this.scheduled = true
      setImmediate(() => void this.flush())
    })
  }

  private async flush(): Promise<void> {
    const batch = this.queue
    this.queue = []
    this.scheduled = false
    try {
      await this.db.tx((tx) =>
        this.write(
          tx,
          batch.map((b) => b.item),
        ),
      )
      for (const b of batch) b.resolve()
    } catch {
      // One bad write does not fail the others: each is tried again on its own, and only its own caller hears of it.
      for (const b of batch) this.db.tx((tx) => this.write(tx, [b.item])).then(b.resolve, b.reject)
    }
  }
}

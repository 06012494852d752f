// Long polls waiting in this process, by key (the claim route of agent kickoffs waits here for a kickoff to claim):
// wait() resolves when a key it waits on is notified, after its time, when its signal aborts, or when all are closed.
export class Waiters {
  private readonly byKey = new Map<string, Set<(notified: boolean) => void>>()
  private ended = false

  /** After close(): every wait ends at once. */
  get closed(): boolean {
    return this.ended
  }

  /** Whether someone waits on this key now. */
  has(key: string): boolean {
    return (this.byKey.get(key)?.size ?? 0) > 0
  }

  /** Resolves to true when one of `keys` was notified, false after `ms`, an abort of `signal` or close(). */
  wait(keys: readonly string[], ms: number, signal?: AbortSignal): Promise<boolean> {
    if (this.ended || ms <= 0 || signal?.aborted) return Promise.resolve(false)
    return new Promise((resolve) => {
      const done = (notified: boolean) => {
        clearTimeout(timer)
        signal?.removeEventListener('abort', aborted)
        for (const key of keys) {
          const set = this.byKey.get(key)
          set?.delete(done)
          if (set?.size === 0) this.byKey.delete(key)
        }
        resolve(notified)
      }
      const aborted = () => done(false)
      const timer = setTimeout(() => done(false), ms)
      signal?.addEventListener('abort', aborted, { once: true })
      for (const key of keys) {
        let set = this.byKey.get(key)
        if (!set) this.byKey.set(key, (set = new Set()))
        set.add(done)
      }
    })
  }

  /** The keys someone waits on now. */
  keys(): string[] {
    return [...this.byKey.keys()]
  }

  /** Wakes everyone waiting on these keys. */
  notify(keys: readonly string[]): void {
    for (const key of keys) for (const done of [...(this.byKey.get(key) ?? [])]) done(true)
  }

  /** Ends every wait (false) and every later one at once: shutdown. */
  close(): void {
    this.ended = true
    for (const set of this.byKey.values()) for (const done of [...set]) done(false)
  }
}

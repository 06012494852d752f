// Waiting in a test for what another process, thread or timer does: polls until the probe gives a value. The test's
// timeout bounds the wait, so a loaded machine slows it but cannot fail it, and a wait past 10 s says on stderr what it
// is still waiting for (a hint for the timeout's report). node:test cannot stop a test function that timed out, so a
// wait that outlives every test's timeout (ABANDON_AFTER_MS) gives up and throws: the file then ends with its failure
// reported instead of polling on forever.
const ABANDON_AFTER_MS = 15 * 60_000

export async function until<T>(what: string, probe: () => Promise<T | undefined | null | false> | T | undefined | null | false): Promise<T> {
  const hint = setTimeout(() => console.error(`still waiting for ${what}`), 10_000)
  hint.unref()
  const started = performance.now()
  try {
    for (;;) {
      const v = await probe()
      if (v) return v
      if (performance.now() - started > ABANDON_AFTER_MS) throw new Error(`gave up waiting for ${what} (the test has timed out)`)
      await new Promise((r) => setTimeout(r, 10))
    }
  } finally {
    clearTimeout(hint)
  }
}

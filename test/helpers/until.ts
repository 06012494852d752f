// Waiting in a test for what another process, thread or timer does: polls until the probe gives a value. No deadline
// of its own, so a loaded machine slows the wait but cannot fail it; the test's timeout bounds it, and a wait past
// 10 s says on stderr what it is still waiting for (a hint for the timeout's report, never a failure).
export async function until<T>(what: string, probe: () => Promise<T | undefined | null | false> | T | undefined | null | false): Promise<T> {
  const hint = setTimeout(() => console.error(`still waiting for ${what}`), 10_000)
  hint.unref()
  try {
    for (;;) {
      const v = await probe()
      if (v) return v
      await new Promise((r) => setTimeout(r, 10))
    }
  } finally {
    clearTimeout(hint)
  }
}

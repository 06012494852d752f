// A latency probe for the stall tests: while hostile or heavy work runs, it sends GET /v1/users/me every `everyMs`
// without waiting for the previous answer (a stalled server piles the requests up instead of slowing the probe), and
// reports the answers' latencies. The p99 is a figure for the test output and for assertTiming (asserted only in
// npm run test:perf); the signal npm test asserts is `answeredDuring`, answers that arrived while the work went on.
export interface ProbeReport {
  count: number
  /** Answers that arrived before `stop()` was called: a stalled server answers none or one. */
  answeredDuring: number
  /** Requests sent before `stop()` was called: how long the work lasted, in probe intervals. */
  sentDuring: number
  failed: number
  p50: number
  p99: number
  max: number
  /** One line for the test output. */
  summary: string
}

export interface Probe {
  /** Stops sending, waits for the answers still out, and reports. */
  stop(): Promise<ProbeReport>
}

export function startProbe(url: string, token: string, everyMs = 50): Probe {
  const latencies: number[] = []
  const pending = new Set<Promise<void>>()
  let stopped = false
  let answeredDuring = 0
  let sentDuring = 0
  let failed = 0
  const send = () => {
    sentDuring++
    const t0 = performance.now()
    const p = fetch(`${url}/v1/users/me`, { headers: { authorization: `Bearer ${token}` } })
      .then(async (res) => {
        await res.arrayBuffer()
        latencies.push(performance.now() - t0)
        if (res.status !== 200) failed++
        if (!stopped) answeredDuring++
      })
      .catch(() => {
        failed++
      })
      .finally(() => pending.delete(p))
    pending.add(p)
  }
  send()
  const timer = setInterval(send, everyMs)
  return {
    async stop() {
      stopped = true
      clearInterval(timer)
      await Promise.all([...pending])
      const sorted = [...latencies].sort((a, b) => a - b)
      const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(sorted.length * q) - 1))] ?? NaN
      const report = { count: sorted.length, answeredDuring, sentDuring, failed, p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? NaN }
      return {
        ...report,
        summary: `/v1/users/me every ${everyMs} ms: ${report.count} answers (${answeredDuring} during the work, ${failed} failed), p50 ${report.p50.toFixed(1)} ms, p99 ${report.p99.toFixed(1)} ms, max ${report.max.toFixed(1)} ms`,
      }
    },
  }
}

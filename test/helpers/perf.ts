// Timing checks, asserted only by `npm run test:perf` (TASKD_TEST_PERF=1): a busy machine makes everything slower, so
// npm test proves the same properties by signals and leaves the figures to a run with nothing else beside it.
import assert from 'node:assert/strict'

export const perfRun = process.env.TASKD_TEST_PERF === '1'

/** Asserts `ok` in the perf run; elsewhere a no-op. */
export function assertTiming(ok: boolean, figure: string): void {
  if (perfRun) assert.ok(ok, figure)
}

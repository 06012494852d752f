// A node:test reporter for scripts/test.sh (TASKD_TEST_TIMES=DIR): one line per test file, the summed duration of its
// top-level tests in seconds (a scenario table's under its title), longest first, so the files that hold up npm test are easy to find.
export default async function* testTimes(source) {
  const perFile = new Map()
  for await (const event of source) {
    if ((event.type === 'test:pass' || event.type === 'test:fail') && event.data.nesting === 0 && event.data.file) {
      // A scenario table's tests are declared in test/helpers/scenarios.ts: counted under the table's title instead.
      const key = event.data.file.includes('/helpers/') ? `scenarios: ${event.data.name.split(':')[0]}` : event.data.file
      perFile.set(key, (perFile.get(key) ?? 0) + (event.data.details?.duration_ms ?? 0))
    }
  }
  const cwd = process.cwd() + '/'
  for (const [file, ms] of [...perFile].sort((a, b) => b[1] - a[1])) yield `${(ms / 1000).toFixed(1).padStart(7)}  ${file.replace(cwd, '')}\n`
}

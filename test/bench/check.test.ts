// The bench's regression guard (bench/ratios.js, `npm run bench -- --check`) on made-up results: a ratio more than
// 15% below its recorded figure fails, one within passes, one not measured is not checked, an unreadable block is an
// error. Then `node bench/run.js --check-results` on a saved run, against the block committed in bench/README.md.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'
import { pathToFileURL } from 'node:url'
import { ROOT } from '../helpers/serve.js'

type Results = Record<string, Record<string, { ratio?: number; ratioFloor?: number }>>
interface Compared {
  key: string
  recorded: number
  measured: number | undefined
  dropped: boolean
}
interface Ratios {
  RECORDED_HEADING: string
  RATIO_KEYS: Record<string, 'ratio' | 'ratioFloor'>
  readRecorded(text: string): { entries: Map<string, number> }
  compareRecorded(entries: Map<string, number>, results: Results): Compared[]
  withRecorded(text: string, results: Results, isTaskd: (server: string) => boolean): { text: string; count: number }
  combineRounds(
    rounds: Record<string, (Measured | undefined)[]>,
  ): Record<string, Measured & { ratio?: number; ratioFloor?: number; rounds?: (number | null)[] }>
}
interface Measured {
  rps: number
  p99: number
  peakMemory: number
  peakRss: number
}
const ratios = (await import(pathToFileURL(path.join(ROOT, 'bench/ratios.js')).href)) as Ratios

const readme = (block: string[]) =>
  `# Bench\n\nSome text.\n\n${ratios.RECORDED_HEADING}\n\nHow it works.\n\n\`\`\`text\n${block.join('\n')}\n\`\`\`\n\n## After\n`
const RECORDED = readme(['create         taskd      x/limit  0.80', 'create         taskd      x/floor  1.00', 'selective      taskd-pg   x/floor  0.20'])

test('--check: a ratio more than 15% below its recorded figure is a drop; within 15% or not measured is not', () => {
  const { entries } = ratios.readRecorded(RECORDED)
  assert.deepEqual(
    [...entries],
    [
      ['create taskd x/limit', 0.8],
      ['create taskd x/floor', 1],
      ['selective taskd-pg x/floor', 0.2],
    ],
  )
  const byKey = (results: Results) => Object.fromEntries(ratios.compareRecorded(entries, results).map((c) => [c.key, c]))

  // 16% and 20% below: dropped; 14% below and above: not; the PostgreSQL server was not measured.
  const c = byKey({ create: { taskd: { ratio: 0.8 * 0.84, ratioFloor: 0.86 }, limit: {} } })
  assert.equal(c['create taskd x/limit'].dropped, true)
  assert.equal(c['create taskd x/floor'].dropped, false)
  assert.equal(c['selective taskd-pg x/floor'].measured, undefined)
  assert.equal(c['selective taskd-pg x/floor'].dropped, false)

  const d = byKey({ create: { taskd: { ratio: 0.9, ratioFloor: 0.8 } }, selective: { 'taskd-pg': { ratioFloor: 0.17 - 0.001 } } })
  assert.deepEqual(
    Object.values(d).map((x) => [x.key, x.dropped]),
    [
      ['create taskd x/limit', false],
      ['create taskd x/floor', true],
      ['selective taskd-pg x/floor', true],
    ],
  )
  // Exactly 85% of the recorded figure still passes.
  assert.equal(byKey({ selective: { 'taskd-pg': { ratioFloor: 0.2 * 0.85 } } })['selective taskd-pg x/floor'].dropped, false)
})

test('--check: a missing or unreadable block of recorded ratios is an error, not a pass', () => {
  assert.throws(() => ratios.readRecorded('# Bench\n\nno block\n'), /no fenced block/)
  assert.throws(() => ratios.readRecorded(readme(['create taskd x/limit'])), /cannot read "create taskd x\/limit"/)
  assert.throws(() => ratios.readRecorded(readme(['create taskd x/median 0.5'])), /cannot read/)
  assert.throws(() => ratios.readRecorded(readme(['create taskd x/limit zero'])), /cannot read/)
  assert.throws(() => ratios.readRecorded(readme(['create taskd x/limit 0.5', 'create taskd x/limit 0.6'])), /recorded twice/)
})

test("--record: the run's ratios of the taskd servers replace theirs; others and those not measured stay", () => {
  const { text, count } = ratios.withRecorded(
    RECORDED,
    { create: { taskd: { ratio: 0.723, ratioFloor: 0.9 }, floor: { ratio: 1.4 } }, text: { taskd: { ratio: 1.83 } } },
    (server) => server.startsWith('taskd'),
  )
  assert.equal(count, 4)
  assert.deepEqual(
    [...ratios.readRecorded(text).entries],
    [
      ['create taskd x/limit', 0.72],
      ['create taskd x/floor', 0.9],
      ['selective taskd-pg x/floor', 0.2],
      ['text taskd x/limit', 1.83],
    ],
  )
  assert.ok(text.startsWith('# Bench\n') && text.endsWith('```\n\n## After\n'), 'the rest of the README is kept')
})

test("--repeat: the ratios are the medians of each round's ratios; the other figures those of the median round", () => {
  const m = (rps: number, p99 = rps / 100, peakMemory = rps): Measured => ({ rps, p99, peakMemory, peakRss: peakMemory + 1 })
  // A slowdown hit taskd alone in round 2: its ratios of that round (1 and 0.25) are left out by the medians. The
  // floor did not run in round 3: its ratios pair rounds 1 and 2 only; the limit did not run in round 2.
  const c = ratios.combineRounds({
    taskd: [m(400), m(200), m(420)],
    limit: [m(200), undefined, m(210)],
    floor: [m(800), m(800)],
  })
  assert.deepEqual(Object.keys(c), ['taskd', 'limit', 'floor'])
  assert.equal(c.taskd.ratio, 2) // of round 1 (2) and round 3 (2)
  assert.equal(c.taskd.ratioFloor, (0.5 + 0.25) / 2) // rounds 1 and 2
  assert.equal(c.limit.ratio, undefined)
  assert.equal(c.limit.ratioFloor, 0.25) // round 1 only
  assert.equal(c.floor.ratioFloor, undefined)
  const d = ratios.combineRounds({ taskd: [m(400), m(200), m(420)], floor: [m(800), m(800), m(840)] })
  assert.equal(d.taskd.ratioFloor, 0.5, 'the slow round of one server is the outlier the median leaves out')
  assert.deepEqual(c.taskd.rounds, [400, 200, 420])
  assert.deepEqual(c.limit.rounds, [200, null, 210], 'a round a server missed shows as such')
  assert.equal(c.taskd.rps, 400)
  assert.equal(c.taskd.p99, 4, 'the p99 of the round with the median req/s')
  assert.equal(c.taskd.peakMemory, 420, 'the highest peak of all rounds')
  assert.equal(c.taskd.peakRss, 421)
  assert.equal(c.limit.rps, 200, 'of two rounds, the lower')
  // One round: the figures of that run, its ratios as they were.
  const one = ratios.combineRounds({ taskd: [m(300)], limit: [m(150)], floor: [undefined] })
  assert.equal(one.taskd.ratio, 2)
  assert.equal(one.taskd.ratioFloor, undefined)
  assert.equal(one.taskd.rounds, undefined)
  assert.equal(one.floor, undefined, 'a server that never ran has no result')
})

const checkSaved = (file: string) =>
  new Promise<{ status: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, [path.join(ROOT, 'bench/run.js'), '--check-results', file], { encoding: 'utf8' }, (err, stdout, stderr) =>
      resolve({ status: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    )
  })

test('node bench/run.js --check-results: exit 1 and the drops listed when a saved run fell more than 15% below bench/README.md', async () => {
  // The block committed in bench/README.md must be readable, and hold the targets' scenarios.
  const { entries } = ratios.readRecorded(fs.readFileSync(path.join(ROOT, 'bench/README.md'), 'utf8'))
  assert.ok(entries.has('create taskd x/floor') && entries.has('selective taskd x/floor'), [...entries.keys()].join(', '))
  const saved = (factor: number, skip?: string): Results => {
    const results: Results = {}
    for (const [key, recorded] of entries) {
      if (key === skip) continue
      const [name, server, which] = key.split(' ')
      const r = ((results[name] ??= {})[server] ??= {})
      r[ratios.RATIO_KEYS[which]] = recorded * factor
    }
    return results
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-bench-check-'))
  try {
    const file = path.join(dir, 'results.json')
    fs.writeFileSync(file, JSON.stringify({ results: saved(0.9, 'create taskd x/limit') }))
    const within = await checkSaved(file)
    assert.equal(within.status, 0, within.stdout + within.stderr)
    assert.match(within.stdout, /create taskd x\/limit +recorded [\d.]+, not measured in this run/)
    assert.doesNotMatch(within.stdout, /DROPPED|PROBLEMS/)

    fs.writeFileSync(file, JSON.stringify({ results: saved(0.8) }))
    const dropped = await checkSaved(file)
    assert.equal(dropped.status, 1, dropped.stdout + dropped.stderr)
    const listed = dropped.stdout.split('PROBLEMS:')[1] ?? ''
    for (const key of entries.keys()) assert.ok(listed.includes(`--check: ${key} is `), `${key} listed as a drop:\n${dropped.stdout}`)

    // The saved run's own problems fail the check as they failed the run.
    fs.writeFileSync(file, JSON.stringify({ results: saved(1), problems: ['create/taskd: 3 errors, 0 timeouts, 0 non-2xx'] }))
    const invalid = await checkSaved(file)
    assert.equal(invalid.status, 1, invalid.stdout + invalid.stderr)
    assert.match(invalid.stdout, /PROBLEMS:\n {2}\(in the saved run\) create\/taskd: 3 errors/)

    // What is not a bench run's results is an error, not a pass.
    assert.equal((await checkSaved(path.join(dir, 'missing.json'))).status, 2, 'a file that cannot be read')
    for (const notResults of [{}, { results: 'x' }, { results: { create: { limit: { rps: 1 } } } }]) {
      fs.writeFileSync(file, JSON.stringify(notResults))
      const r = await checkSaved(file)
      assert.equal(r.status, 2, `${JSON.stringify(notResults)}: ${r.stdout}${r.stderr}`)
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

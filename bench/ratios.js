// The regression guard of `npm run bench -- --check`: the ratios recorded in bench/README.md, in the fenced block
// under RECORDED_HEADING, a line each: `<scenario> <server> x/limit|x/floor <ratio>`. A measured ratio below
// (1 - ALLOWED_DROP) × its recorded figure is a drop; a recorded ratio the run did not measure is not checked.
// --record writes a run's ratios of the taskd servers into the block. Pure functions of the README's text and of a
// run's results ({ scenario: { server: { ratio, ratioFloor } } }, as in bench/out/results.json), so that
// test/bench/check.test.ts tests them; bench/run.js reads and writes the file.

export const RECORDED_HEADING = '## Recorded ratios (for --check)'
export const RATIO_KEYS = { 'x/limit': 'ratio', 'x/floor': 'ratioFloor' }
export const ALLOWED_DROP = 0.15

/**
 * The recorded ratios in the README's text: the block's lines (start and end are its fences) and its entries,
 * "scenario server x/limit|x/floor" → ratio. Throws when there is no such block or a line of it cannot be read.
 */
export function readRecorded(text) {
  const lines = text.split('\n')
  const heading = lines.indexOf(RECORDED_HEADING)
  const start = heading < 0 ? -1 : lines.findIndex((l, i) => i > heading && l.startsWith('```'))
  const end = start < 0 ? -1 : lines.findIndex((l, i) => i > start && l.startsWith('```'))
  if (end < 0) throw new Error(`bench/README.md has no fenced block under "${RECORDED_HEADING}"`)
  const entries = new Map()
  for (const line of lines.slice(start + 1, end)) {
    if (!line.trim()) continue
    const f = line.trim().split(/\s+/)
    if (f.length !== 4 || !RATIO_KEYS[f[2]] || !(Number(f[3]) > 0))
      throw new Error(`bench/README.md, recorded ratios: cannot read "${line}" (expected: scenario server x/limit|x/floor ratio)`)
    const key = f.slice(0, 3).join(' ')
    if (entries.has(key)) throw new Error(`bench/README.md, recorded ratios: "${key}" is recorded twice`)
    entries.set(key, Number(f[3]))
  }
  return { lines, start, end, entries }
}

/** Each recorded ratio against a run's results: measured is undefined when the run did not measure it. */
export function compareRecorded(entries, results) {
  return [...entries].map(([key, recorded]) => {
    const [name, server, which] = key.split(' ')
    const measured = results[name]?.[server]?.[RATIO_KEYS[which]]
    const least = (1 - ALLOWED_DROP) * recorded
    return { key, recorded, measured, least, dropped: measured !== undefined && measured < least }
  })
}

/**
 * The README's text with the block holding the run's ratios of the servers isTaskd(server) accepts; recorded ratios
 * the run did not measure stay as they are. Returns the new text and the number of lines in the block.
 */
export function withRecorded(text, results, isTaskd) {
  const { lines, start, end, entries } = readRecorded(text)
  for (const [name, byServer] of Object.entries(results))
    for (const [server, r] of Object.entries(byServer))
      for (const [which, key] of Object.entries(RATIO_KEYS)) if (isTaskd(server) && r[key] !== undefined) entries.set(`${name} ${server} ${which}`, r[key])
  const block = [...entries].map(([k, v]) => {
    const [name, server, which] = k.split(' ')
    return `${name.padEnd(14)} ${server.padEnd(10)} ${which.padEnd(8)} ${v.toFixed(2)}`
  })
  lines.splice(start + 1, end - start - 1, ...block)
  return { text: lines.join('\n'), count: block.length }
}

const median = (xs) => {
  if (xs.length === 0) return undefined
  const s = [...xs].sort((a, b) => a - b),
    m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}

/**
 * One result per server from the rounds of a scenario (rounds[server][i]: its result in round i, missing where it did
 * not run). In each round the servers run one after the other: a slowdown of the host shorter than a round skews the
 * ratios of the one round whose servers it hit, not all of them. So a server's ratios to the limit and to the floor
 * (floorOf(server) names its floor) are the medians of its ratios in each round (a round counts where both ran). Its other figures are those of its
 * round with the median req/s (the lower of two), its peak memory the highest of all rounds, and `rounds` lists its
 * req/s in each round (null where it did not run; only when there were several rounds).
 */
export function combineRounds(rounds, floorOf = () => 'floor') {
  const combined = {}
  for (const [server, rs] of Object.entries(rounds)) {
    const ran = rs.filter(Boolean)
    if (ran.length === 0) continue
    const ratioTo = (base) =>
      server === base || !rounds[base] ? undefined : median(rs.flatMap((r, i) => (r && rounds[base][i] ? [r.rps / rounds[base][i].rps] : [])))
    const mid = [...ran].sort((a, b) => a.rps - b.rps)[(ran.length - 1) >> 1]
    combined[server] = {
      ...mid,
      peakMemory: Math.max(...ran.map((r) => r.peakMemory)),
      peakRss: Math.max(...ran.map((r) => r.peakRss)),
      ratio: ratioTo('limit'),
      ratioFloor: ratioTo(floorOf(server)),
      ...(rs.length > 1 ? { rounds: Array.from(rs, (r) => r?.rps ?? null) } : {}),
    }
  }
  return combined
}

// Progress of a long command, on stderr so stdout keeps only results: a redrawn bar on a terminal, else a plain line
// at each 10% step (logs and pipes get a few lines, not a stream of carriage returns). Work that goes back (SQLite's
// backup starts over when another connection writes the database mid-copy) says so in a line of its own.
const WIDTH = 20

export interface Progress {
  /** done of total units so far (pages, tables, rows); a total of 0 counts as finished. */
  update(done: number, total: number): void
}

export function progress(label: string, out: NodeJS.WriteStream = process.stderr): Progress {
  const start = out.isTTY ? -1 : 0
  let shown = start
  let fraction = 0
  return {
    update(done, total) {
      const now = total > 0 ? Math.min(1, done / total) : 1
      if (now < fraction) {
        out.write(`${out.isTTY ? '\n' : ''}${label}: started over\n`)
        shown = start
      }
      fraction = now
      const pct = Math.floor(now * 100)
      const step = out.isTTY ? pct : Math.floor(pct / 10) * 10
      if (step <= shown) return
      shown = step
      if (!out.isTTY) out.write(`${label}: ${step}%\n`)
      else {
        const filled = Math.round((pct / 100) * WIDTH)
        out.write(`\r${label} [${'#'.repeat(filled)}${'.'.repeat(WIDTH - filled)}] ${pct}%${pct === 100 ? '\n' : ''}`)
      }
    },
  }
}

// `<db>.pid`: the process using a SQLite file as its server (`taskd serve`) or replacing it (`taskd restore`); the other
// refuses while it lives.
import fs from 'node:fs'

const pidFileFor = (dbFile: string): string => `${dbFile}.pid`

/**
 * Takes `<db>.pid` for this process (owner-only), so that a second `serve` and a `restore` refuse while it runs; a file a
 * killed process left behind is replaced. Returns the release, to run when done with the database.
 */
export function takePidFile(dbFile: string, refusal: string): () => void {
  const file = pidFileFor(dbFile)
  for (;;) {
    try {
      fs.writeFileSync(file, `${process.pid}\n`, { mode: 0o600, flag: 'wx' })
      break
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
    }
    const holder = runningServer(dbFile)
    if (holder) throw new Error(`taskd (pid ${holder}) is using ${dbFile}: ${refusal}`)
    fs.rmSync(file, { force: true }) // stale
  }
  return () => {
    // Only our own, in case the file was replaced meanwhile.
    const pid = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim() : undefined
    if (pid === String(process.pid)) fs.rmSync(file, { force: true })
  }
}

/** The pid of a live server on this database, or undefined (no file, or a stale one a killed server left behind). */
function runningServer(dbFile: string): number | undefined {
  let pid: number
  try {
    pid = Number(fs.readFileSync(pidFileFor(dbFile), 'utf8').trim())
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw err
  }
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return undefined
  try {
    process.kill(pid, 0) // signal 0: only asks whether the process exists
    return pid
  } catch (err) {
    // EPERM: it exists but belongs to another user, which still means a server may be running.
    return (err as NodeJS.ErrnoException).code === 'EPERM' ? pid : undefined
  }
}

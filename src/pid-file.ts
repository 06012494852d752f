// `<db>.pid`: a running `taskd serve` on a SQLite file says so, and `taskd restore` refuses to replace that file under it.
import fs from 'node:fs'

export const pidFileFor = (dbFile: string): string => `${dbFile}.pid`

/** Writes this process's pid (owner-only); returns the removal to run when the server has closed. */
export function writePidFile(dbFile: string): () => void {
  const file = pidFileFor(dbFile)
  fs.writeFileSync(file, `${process.pid}\n`, { mode: 0o600 })
  return () => {
    // Only our own: a second server started on the same file since may have written its pid.
    const pid = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim() : undefined
    if (pid === String(process.pid)) fs.rmSync(file, { force: true })
  }
}

/** The pid of a live server on this database, or undefined (no file, or a stale one a killed server left behind). */
export function runningServer(dbFile: string): number | undefined {
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

// `taskd <args>` as a child process, as users run it, with none of the caller's TASKD_* settings unless given in env.
import { execFile } from 'node:child_process'
import path from 'node:path'
import { cleanEnv, ROOT } from './serve.js'

export interface CliResult {
  status: number
  stdout: string
  stderr: string
}

/** Asynchronous on purpose: a synchronous spawn would block this process's event loop (and its servers) meanwhile. */
export const runCli = (args: string[], env: Record<string, string> = {}) =>
  new Promise<CliResult>((resolve) => {
    execFile(process.execPath, [path.join(ROOT, 'bin/taskd.js'), ...args], { encoding: 'utf8', env: { ...cleanEnv, ...env } }, (err, stdout, stderr) => {
      resolve({ status: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr })
    })
  })

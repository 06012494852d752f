// `taskd serve` as a child process, as users run it: started on a database file (and on PostgreSQL when env has
// TASKD_DATABASE_URL: pass a TestDatabase's env), stopped in finally.
import { spawn, type ChildProcess } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..')

export interface Served {
  child: ChildProcess
  url: string
  /** The one-time setup token, printed when the database was empty. */
  token?: string
  exited: Promise<number | null>
  output(): string
  /** What it wrote to stderr alone: the log. */
  errors(): string
  /** SIGTERM, and SIGKILL if it has not exited after 15 s; resolves at once once it has exited. */
  stop(): Promise<void>
}

/** SIGTERM, and SIGKILL if the child has not exited after `graceMs`; resolves at once once it has exited. */
export function stopChild(child: ChildProcess, graceMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    const kill = setTimeout(() => child.kill('SIGKILL'), graceMs)
    child.once('exit', () => {
      clearTimeout(kill)
      resolve()
    })
    child.kill('SIGTERM')
  })
}

/** What runs taskd: by default `node bin/taskd.js` in the checkout, with this process's environment under env. */
export interface Command {
  argv: string[]
  cwd: string
  baseEnv: NodeJS.ProcessEnv
}
/** This process's environment without any TASKD_* setting: a child gets only the settings a test gives it. */
export const cleanEnv: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('TASKD_')))
const checkout: Command = { argv: [process.execPath, path.join(ROOT, 'bin/taskd.js')], cwd: ROOT, baseEnv: cleanEnv }

export function serve(db: string, env: Record<string, string> = {}, command: Command = checkout): Promise<Served> {
  // An explicit --db wins over TASKD_DATABASE_URL, so on PostgreSQL the URL is what --db names.
  const target = env.TASKD_DATABASE_URL || db
  const [file, ...args] = command.argv
  const child = spawn(file, [...args, 'serve', '--db', target, '--port', '0'], {
    cwd: command.cwd,
    env: { ...command.baseEnv, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  let out = ''
  let err = ''
  const stop = () => stopChild(child, 15_000)
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL') // a child that never said it listens is not left running
      reject(new Error(`serve did not start: ${out}`))
    }, 20_000)
    child.stderr!.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      err += chunk.toString()
    })
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      const listening = /taskd listening on (http:\/\/\S+)/.exec(out)
      if (listening) {
        clearTimeout(timer)
        resolve({ child, url: listening[1], token: /Setup token[^:]*: (tt_\w+)/.exec(out)?.[1], exited, output: () => out, errors: () => err, stop })
      }
    })
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`taskd exited early (${code}): ${out}`))
    })
  })
}

/** A JSON caller of the served processes with one bearer token: `call(server, method, path, body?, signal?)`. */
export const callerOf =
  (token: string) =>
  async (s: Served, method: string, p: string, body?: unknown, signal?: AbortSignal): Promise<{ status: number; json: any }> => {
    const res = await fetch(s.url + p, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
    })
    return { status: res.status, json: res.status === 204 ? undefined : await res.json() }
  }

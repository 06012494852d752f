// The server's log on stderr (stdout stays for what commands print): errors, and one line per request, as JSON objects
// or short human lines (TASKD_LOG_FORMAT), quieted by TASKD_LOG_LEVEL. Nothing here ever writes a token, secret or body.
import type { Config } from './config.js'

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const
export type LogLevel = keyof typeof LEVELS

/** One answered request: the route pattern, never the raw path (an incoming endpoint's path is its credential). */
export interface RequestEntry {
  method: string
  route: string
  status: number
  duration_ms: number
  request_id: string
  /** The user the token belongs to, or null without one. */
  actor: string | null
  /** Why a public receiver refused the request (a git hook's signature that does not verify), for the operator only. */
  note?: string
}

export interface Logger {
  error(msg: string, err?: unknown): void
  request(entry: RequestEntry): void
}

export function createLogger(
  level: Config['logLevel'],
  format: Config['logFormat'] = 'pretty',
  write: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Logger {
  const on = (l: LogLevel) => LEVELS[l] >= LEVELS[level]
  // Each caller gives both spellings as functions: only the one of the configured format is built.
  const line = (l: LogLevel, msg: string, fields: () => object, suffix: () => string) =>
    write(
      format === 'json' ? JSON.stringify({ time: new Date().toISOString(), level: l, msg, ...fields() }) : `${new Date().toISOString()} ${l} ${msg}${suffix()}`,
    )
  return {
    error: (msg, err) => {
      if (!on('error')) return
      // The stack goes to the operator's log, never into a response.
      const detail = err instanceof Error ? (err.stack ?? err.message) : err === undefined ? undefined : String(err)
      line(
        'error',
        msg,
        () => (detail === undefined ? {} : { error: detail }),
        () => (detail === undefined ? '' : `: ${detail}`),
      )
    },
    request: (e) => {
      if (!on('info')) return
      line(
        'info',
        'request',
        () => e,
        () =>
          ` ${e.method} ${e.route} ${e.status} ${e.duration_ms}ms id=${e.request_id} actor=${e.actor ?? '-'}${e.note ? ` note=${JSON.stringify(e.note)}` : ''}`,
      )
    },
  }
}

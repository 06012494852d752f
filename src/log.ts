// The server's error log on stderr, quieted by TASKD_LOG_LEVEL=silent; stdout stays for what commands print.
import type { Config } from './config.js'

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const
export type LogLevel = keyof typeof LEVELS

export interface Logger {
  error(msg: string, err?: unknown): void
}

export function createLogger(level: Config['logLevel'], write: (line: string) => void = (line) => process.stderr.write(`${line}\n`)): Logger {
  const on = (l: LogLevel) => LEVELS[l] >= LEVELS[level]
  const line = (l: LogLevel, msg: string) => write(`${new Date().toISOString()} ${l} ${msg}`)
  return {
    error: (msg, err) => {
      if (!on('error')) return
      // The stack goes to the operator's log, never into a response.
      line('error', err instanceof Error ? `${msg}: ${err.stack ?? err.message}` : err === undefined ? msg : `${msg}: ${String(err)}`)
    },
  }
}

// Flags over TASKD_* environment over a config file (taskd.toml or taskd.json) → one frozen, zod-checked Config.
import fs from 'node:fs'
import path from 'node:path'
import ipaddr from 'ipaddr.js'
import { parse as parseToml, TomlError } from 'smol-toml'
import { z } from 'zod'
import { isMasterKey } from './crypto.js'
import { WITH_INPUT } from './errors.js'
import { issueMessage } from './zod-messages.js'

/** Comma-separated seconds, e.g. `60,120,300,1800`. */
const delays = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((s, ctx) => {
      const parts = s.split(',').map((p) => Number(p.trim()))
      if (parts.length === 0 || parts.some((n) => !Number.isFinite(n) || n < 0)) {
        ctx.addIssue({ code: 'custom', message: 'must be comma-separated seconds' })
        return z.NEVER
      }
      return parts
    })

/** The background workers `serve` runs (TASKD_WORKERS). */
export const WORKERS = ['outbox', 'automations', 'kickoffs'] as const
export type Worker = (typeof WORKERS)[number]

const bool = z.enum(['true', 'false', '1', '0', 'on', 'off']).transform((v) => v === 'true' || v === '1' || v === 'on')

const ConfigSchema = z.object({
  port: z.coerce.number().int().min(0).max(65535).default(8080),
  host: z.string().min(1).default('127.0.0.1'),
  db: z.string().min(1).default('./data/taskd.db'),
  /** postgres://user:password@host:port/database: run on PostgreSQL instead of the SQLite file. */
  databaseUrl: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must start with postgres:// or postgresql://')
    .optional(),
  /**
   * A direct connection to the same PostgreSQL database, for what needs a session of its own (the one LISTEN connection
   * that hears other processes' wake-ups), when TASKD_DATABASE_URL goes through a transaction pooler (PgBouncer).
   * Unset: TASKD_DATABASE_URL.
   */
  databaseDirectUrl: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must start with postgres:// or postgresql://')
    .optional(),
  /** PostgreSQL connections this process keeps at most. */
  dbPoolSize: z.coerce.number().int().min(1).max(1000).default(10),
  /**
   * PostgreSQL: whether each connection prepares the statements it runs (parsed and planned once per connection).
   * `auto`: on, except when TASKD_DATABASE_DIRECT_URL differs from TASKD_DATABASE_URL (a transaction pooler, where
   * the next transaction may run on another server connection, which does not have them).
   */
  dbPrepare: z.enum(['auto', 'on', 'off']).default('auto'),
  baseUrl: z.string().url().optional(),
  allowPrivateTargets: bool.default(false),
  /**
   * Reverse proxies whose X-Forwarded-For names the real sender (incoming webhooks count and log senders by it):
   * comma-separated addresses or CIDR ranges, or `loopback`. Empty: the connection's own address, the header ignored.
   */
  trustProxy: z
    .string()
    .default('')
    .transform((s, ctx) => {
      const ranges: string[] = []
      for (const part of s
        .split(',')
        .map((p) => p.trim())
        .filter(Boolean)) {
        if (part === 'loopback') ranges.push('127.0.0.0/8', '::1/128')
        else if (ipaddr.isValid(part)) ranges.push(`${part}/${ipaddr.parse(part).kind() === 'ipv4' ? 32 : 128}`)
        else {
          try {
            ipaddr.parseCIDR(part)
            ranges.push(part)
          } catch {
            ctx.addIssue({ code: 'custom', message: `"${part}" is not an address, a CIDR range or loopback` })
            return z.NEVER
          }
        }
      }
      return ranges
    }),
  /** The general API rate limit, requests per minute per token (and per address for routes without a token): `on`
   *  (600), `off`, or a number; 0 is off. Off when absent; `taskd setup` writes a config with it on. */
  rateLimit: z
    .string()
    .default('off')
    .transform((s, ctx) => {
      const v = s.trim().toLowerCase()
      if (v === 'on' || v === 'true') return 600
      if (v === 'off' || v === 'false') return 0
      if (/^\d+$/.test(v) && Number(v) <= 1_000_000) return Number(v)
      ctx.addIssue({ code: 'custom', message: 'must be on, off or a number of requests per minute' })
      return z.NEVER
    }),
  /**
   * Sign-in (POST /v1/sessions): attempts a minute from one address (password or login link), and failed passwords a
   * minute for one account (by email, known or not), past which 429 with Retry-After. Apart from TASKD_RATE_LIMIT and on
   * by default, loopback included; 0 turns one off.
   */
  signinAttemptsPerMinute: z.coerce.number().int().min(0).max(1_000_000).default(10),
  signinFailuresPerMinute: z.coerce.number().int().min(0).max(1_000_000).default(5),
  /** A browser session ends after this many days without a request, and in any case this many days after sign-in. */
  sessionIdleDays: z.coerce.number().min(0.001).max(3650).default(30),
  sessionMaxDays: z.coerce.number().min(0.001).max(3650).default(90),
  /** How long a login link (`taskd user login-link EMAIL`) stays usable, once. */
  loginLinkMinutes: z.coerce.number().int().min(1).max(10_080).default(15),
  /** Request log lines: one JSON object per line, or a short human line. */
  logFormat: z.enum(['json', 'pretty']).default('pretty'),
  /** A bearer token for GET /metrics; without one, /metrics answers only requests from this machine (loopback). */
  metricsToken: z.string().min(16, 'must be at least 16 characters').optional(),
  /** 32 bytes, hex or base64, sealing stored secrets; unset on SQLite: the key file beside the database. */
  masterKey: z.string().refine(isMasterKey, 'must be 32 bytes written as 64 hex characters or base64').optional(),
  webhookRetryDelays: delays('60,120,300,1800'),
  webhookTimeoutMs: z.coerce.number().int().min(1).default(10000),
  /** Bytes of received files an incoming endpoint keeps for its automations; past it the oldest go (256 MB). */
  incomingFilesKeptBytes: z.coerce.number().int().min(1).default(268_435_456),
  /** Days the audit log keeps an entry; the hourly housekeeping deletes older ones. */
  auditRetentionDays: z.coerce.number().int().min(1).max(36_500).default(365),
  /** The largest file POST /v1/files takes, in bytes (25 MB); past it 413 and nothing is stored. */
  maxFileBytes: z.coerce.number().int().min(1).default(26_214_400),
  /** How long a claimed outbox row stays reserved; a crashed process's claims come back after it.
   *  Unset: the attempt timeout plus 20 s, so a live attempt never loses its claim. */
  webhookLeaseMs: z.coerce.number().int().min(100).optional(),
  /** How long a claimed automation run stays reserved per step; a crashed process's runs resume after it. Unset: 50 s
   *  (the longest step timeout, 30 s, plus a margin). */
  automationLeaseMs: z.coerce.number().int().min(100).optional(),
  /** Runs one automation may start in a minute; past it taskd pauses the automation (`paused_reason: too_many_runs`). */
  automationRunsPerMinute: z.coerce.number().int().min(1).default(1000),
  /** Seconds between delivery attempts of a kickoff not yet delivered (the last repeats until it expires). */
  agentRetryDelays: delays('60,120,300,1800'),
  /** A running agent run with no activity for this long is flagged stalled. */
  agentStallMinutes: z.coerce.number().min(0.01).default(30),
  /** How long a kickoff being attempted stays reserved; a crashed process's attempts come back after it. Unset: the
   *  longest attempt (the AI turn's timeout, or the webhook timeout) plus 20 s. */
  agentLeaseMs: z.coerce.number().int().min(100).optional(),
  /** service_ai: an OpenAI-compatible base URL (`https://host/v1`); taskd POSTs to `<base>/chat/completions`. Unset: the power is unavailable. */
  aiUrl: z.string().url().optional(),
  aiKey: z.string().optional(),
  aiModel: z.string().default('gpt-4o-mini'),
  aiTimeoutMs: z.coerce.number().int().min(1).default(60_000),
  logLevel: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  /** A read that takes longer is stopped and answers 503 query_timeout. */
  queryTimeoutMs: z.coerce.number().int().min(1).default(5000),
  /**
   * The safety-net poll of the background workers (outbox, automation runs, kickoffs) and of claim long polls, in ms:
   * commits wake them at once (in every process on one PostgreSQL database), so the poll only finds what a lost
   * wake-up missed.
   */
  pollMs: z.coerce.number().int().min(10).max(86_400_000).default(1000),
  /**
   * The background workers this process runs: a comma-separated list of outbox, automations and kickoffs, or none
   * (an API-only process beside others on the same PostgreSQL database that run them). Default: all three.
   */
  workers: z
    .string()
    .default('outbox,automations,kickoffs')
    .transform((s, ctx) => {
      const parts = s
        .split(',')
        .map((p) => p.trim())
        .filter(Boolean)
      if (parts.length === 1 && parts[0] === 'none') return []
      const bad = parts.filter((p) => !(WORKERS as readonly string[]).includes(p))
      if (bad.length > 0 || parts.length === 0) {
        ctx.addIssue({ code: 'custom', message: `must be none or a comma-separated list of ${WORKERS.join(', ')}` })
        return z.NEVER
      }
      return [...new Set(parts)] as Worker[]
    }),
  /** Read processes that run list, count and export reads off the event loop (SQLite). */
  readWorkers: z.coerce.number().int().min(0).max(16).default(2),
  /**
   * Days the event log keeps an event (the change feed, GET /v1/events, and webhook samples read it); housekeeping
   * deletes older ones hourly, and a feed cursor older than this answers 410 cursor_expired.
   */
  eventRetentionDays: z.coerce.number().min(1).max(36_500).default(30),
  /** Change feed requests waiting (`wait`) at once in this process, in all; past it 429. */
  feedWaits: z.coerce.number().int().min(0).max(100_000).default(10_000),
  /** Change feed requests waiting at once in this process with one token; past it 429. */
  feedWaitsPerToken: z.coerce.number().int().min(0).max(100_000).default(10),
})

/** The settings, and the config file they were read from, if any. */
export type Config = Readonly<z.infer<typeof ConfigSchema> & { configFile?: string }>
type Key = keyof z.input<typeof ConfigSchema>

/** Each setting's environment variable; in a config file the same name without `TASKD_`, in lower case (`base_url`). */
const ENV: Record<Key, string> = {
  port: 'TASKD_PORT',
  host: 'TASKD_HOST',
  db: 'TASKD_DB',
  databaseUrl: 'TASKD_DATABASE_URL',
  databaseDirectUrl: 'TASKD_DATABASE_DIRECT_URL',
  dbPoolSize: 'TASKD_DB_POOL_SIZE',
  dbPrepare: 'TASKD_DB_PREPARE',
  baseUrl: 'TASKD_BASE_URL',
  allowPrivateTargets: 'TASKD_ALLOW_PRIVATE_TARGETS',
  trustProxy: 'TASKD_TRUST_PROXY',
  rateLimit: 'TASKD_RATE_LIMIT',
  signinAttemptsPerMinute: 'TASKD_SIGNIN_ATTEMPTS_PER_MINUTE',
  signinFailuresPerMinute: 'TASKD_SIGNIN_FAILURES_PER_MINUTE',
  sessionIdleDays: 'TASKD_SESSION_IDLE_DAYS',
  sessionMaxDays: 'TASKD_SESSION_MAX_DAYS',
  loginLinkMinutes: 'TASKD_LOGIN_LINK_MINUTES',
  logFormat: 'TASKD_LOG_FORMAT',
  metricsToken: 'TASKD_METRICS_TOKEN',
  masterKey: 'TASKD_MASTER_KEY',
  webhookRetryDelays: 'TASKD_WEBHOOK_RETRY_DELAYS',
  webhookTimeoutMs: 'TASKD_WEBHOOK_TIMEOUT_MS',
  incomingFilesKeptBytes: 'TASKD_INCOMING_FILES_KEPT_BYTES',
  auditRetentionDays: 'TASKD_AUDIT_RETENTION_DAYS',
  maxFileBytes: 'TASKD_MAX_FILE_BYTES',
  webhookLeaseMs: 'TASKD_WEBHOOK_LEASE_MS',
  automationLeaseMs: 'TASKD_AUTOMATION_LEASE_MS',
  automationRunsPerMinute: 'TASKD_AUTOMATION_RUNS_PER_MINUTE',
  agentRetryDelays: 'TASKD_AGENT_RETRY_DELAYS',
  agentStallMinutes: 'TASKD_AGENT_STALL_MINUTES',
  agentLeaseMs: 'TASKD_AGENT_LEASE_MS',
  aiUrl: 'TASKD_AI_URL',
  aiKey: 'TASKD_AI_KEY',
  aiModel: 'TASKD_AI_MODEL',
  aiTimeoutMs: 'TASKD_AI_TIMEOUT_MS',
  logLevel: 'TASKD_LOG_LEVEL',
  queryTimeoutMs: 'TASKD_QUERY_TIMEOUT_MS',
  readWorkers: 'TASKD_READ_WORKERS',
  pollMs: 'TASKD_POLL_MS',
  workers: 'TASKD_WORKERS',
  eventRetentionDays: 'TASKD_EVENT_RETENTION_DAYS',
  feedWaits: 'TASKD_FEED_WAITS',
  feedWaitsPerToken: 'TASKD_FEED_WAITS_PER_TOKEN',
}
const KEYS = Object.keys(ENV) as Key[]
/** The key a config file uses for a setting. */
const fileKey = (key: Key) => ENV[key].slice('TASKD_'.length).toLowerCase()
const BY_FILE_KEY = new Map(KEYS.map((k) => [fileKey(k), k]))

/** The names a config file may have beside the database. */
export const CONFIG_FILES = ['taskd.toml', 'taskd.json'] as const

/** The config file to read: the one named (`--config`, TASKD_CONFIG), else taskd.toml or taskd.json beside the SQLite file. */
function configFileFor(named: string | undefined, db: string): { file: string; beside: boolean } | undefined {
  if (named) return { file: named, beside: false }
  if (/^postgres(ql)?:\/\//.test(db) || db === ':memory:') return undefined
  const found = CONFIG_FILES.map((name) => path.join(path.dirname(db), name)).filter((f) => fs.existsSync(f))
  if (found.length > 1) throw new Error(`invalid configuration: both ${found.join(' and ')} exist; keep one`)
  return found.length ? { file: found[0], beside: true } : undefined
}

/** Why a config file could not be read, without quoting it: it may hold secrets (master_key, ai_key, metrics_token). */
function unreadable(err: unknown): string {
  if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'no such file'
  if (err instanceof TomlError) return `${err.message.split('\n')[0]} at line ${err.line}, column ${err.column}`
  if (err instanceof SyntaxError) {
    const at = /at position (\d+)/.exec(err.message)
    return at ? `not valid JSON at character ${Number(at[1]) + 1}` : 'not valid JSON'
  }
  return (err as Error).message
}

/** A config file's settings as the strings the environment would give, with the file key of each. */
function readConfigFile(file: string, beside: boolean): Partial<Record<Key, string>> {
  let data: unknown
  try {
    const text = fs.readFileSync(file, 'utf8')
    data = file.endsWith('.json') ? JSON.parse(text) : parseToml(text)
  } catch (err) {
    throw new Error(`invalid configuration: ${file}: ${unreadable(err)}`, { cause: err })
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new Error(`invalid configuration: ${file}: must hold key = value settings`)
  const out: Partial<Record<Key, string>> = {}
  for (const [name, value] of Object.entries(data)) {
    const key = BY_FILE_KEY.get(name)
    if (!key) throw new Error(`invalid configuration: ${file}: unknown key "${name}" (known keys: ${[...BY_FILE_KEY.keys()].join(', ')})`)
    if (beside && (key === 'db' || key === 'databaseUrl' || key === 'databaseDirectUrl')) {
      throw new Error(`invalid configuration: ${file}: ${name}: a config file beside the database cannot name another database; use --config`)
    }
    const scalar = (v: unknown) => (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined)
    const text = Array.isArray(value) && value.every((v) => scalar(v) !== undefined) ? value.map(scalar).join(',') : scalar(value)
    if (text === undefined) throw new Error(`invalid configuration: ${file}: ${name}: must be a string, a number, true/false or a list of them`)
    out[key] = text
  }
  return out
}

/**
 * Builds the config from explicit values (CLI flags) over TASKD_* environment variables over the config file: the one
 * `flags.config` or TASKD_CONFIG names, else `taskd.toml` or `taskd.json` beside the SQLite database, if there is one.
 * Errors name the setting as its source spells it: `--port`, `TASKD_PORT` or `taskd.toml: port`.
 */
export function loadConfig(flags: Partial<Record<Key, unknown>> & { config?: string } = {}, env: NodeJS.ProcessEnv = process.env): Config {
  const fromEnv = (key: Key) => (env[ENV[key]] === '' ? undefined : env[ENV[key]])
  // An explicit --db wins over TASKD_DATABASE_URL, as flags win over the environment.
  const dbFlagWins = flags.db !== undefined && flags.databaseUrl === undefined
  const source = (key: Key): { value: unknown; from: string } | undefined => {
    if (flags[key] !== undefined) return { value: flags[key], from: `--${fileKey(key).replace(/_/g, '-')}` }
    if (key === 'databaseUrl' && dbFlagWins) return undefined
    const v = fromEnv(key)
    return v === undefined ? undefined : { value: v, from: ENV[key] }
  }
  const db = String(source('db')?.value ?? './data/taskd.db')
  const named = flags.config ?? (env.TASKD_CONFIG || undefined)
  const located = configFileFor(named, db)
  const file = located ? readConfigFile(located.file, located.beside) : {}
  const raw: Partial<Record<Key, unknown>> = {}
  const from: Partial<Record<Key, string>> = {}
  for (const key of KEYS) {
    const s =
      source(key) ??
      (file[key] !== undefined && !(key === 'databaseUrl' && dbFlagWins) ? { value: file[key], from: `${located!.file}: ${fileKey(key)}` } : undefined)
    if (s) [raw[key], from[key]] = [s.value, s.from]
  }
  // Parsed once a process: zod's compiled fast path (code generated and compiled on first use) would cost more than it saves.
  const parsed = ConfigSchema.safeParse(raw, { ...WITH_INPUT, jitless: true })
  if (!parsed.success) {
    // The value as given (before coercion: `--port abc`, not NaN) when the issue is about the setting itself.
    const reason = (i: z.core.$ZodIssue) => issueMessage(i, '', i.path.length === 1 ? raw[i.path[0] as Key] : (i as { input?: unknown }).input)
    const msg = parsed.error.issues.map((i) => `${from[i.path[0] as Key] ?? (String(i.path[0] ?? '') || 'config')}: ${reason(i)}`).join('; ')
    throw new Error(`invalid configuration: ${msg}`)
  }
  // `--db postgres://...` (or TASKD_DB) names a PostgreSQL database too.
  const data = { ...parsed.data, configFile: located?.file }
  if (!data.databaseUrl && /^postgres(ql)?:\/\//.test(data.db)) return Object.freeze({ ...data, databaseUrl: data.db })
  return Object.freeze(data)
}

/** The public address used in links: TASKD_BASE_URL, or the listening address. */
export function publicBaseUrl(config: Config): string {
  return (config.baseUrl ?? httpUrl(config.host, config.port)).replace(/\/+$/, '')
}

/** `http://host:port`, an IPv6 address in brackets. */
export const httpUrl = (host: string, port: number): string => `http://${host.includes(':') ? `[${host}]` : host}:${port}`

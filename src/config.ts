// Flags + environment → one frozen, zod-checked Config.
import ipaddr from 'ipaddr.js'
import { z } from 'zod'

/** Comma-separated seconds, e.g. `60,120,300,1800`. */
const delays = (name: string, fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((s, ctx) => {
      const parts = s.split(',').map((p) => Number(p.trim()))
      if (parts.length === 0 || parts.some((n) => !Number.isFinite(n) || n < 0)) {
        ctx.addIssue({ code: 'custom', message: `${name} must be comma-separated seconds` })
        return z.NEVER
      }
      return parts
    })

const bool = z.enum(['true', 'false', '1', '0', 'on', 'off']).transform((v) => v === 'true' || v === '1' || v === 'on')

const ConfigSchema = z.object({
  port: z.coerce.number().int().min(0).max(65535).default(8080),
  host: z.string().min(1).default('127.0.0.1'),
  db: z.string().min(1).default('./data/taskd.db'),
  /** postgres://user:password@host:port/database: run on PostgreSQL instead of the SQLite file. */
  databaseUrl: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'TASKD_DATABASE_URL must start with postgres:// or postgresql://')
    .optional(),
  /** PostgreSQL connections this process keeps at most. */
  dbPoolSize: z.coerce.number().int().min(1).max(1000).default(10),
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
            ctx.addIssue({ code: 'custom', message: `TASKD_TRUST_PROXY: "${part}" is not an address, a CIDR range or loopback` })
            return z.NEVER
          }
        }
      }
      return ranges
    }),
  /** The general API rate limit, requests per minute per token (and per address for routes without a token): `on`
   *  (600), `off`, or a number; 0 is off. Off when absent, as SPEC says; `taskd setup` writes a config with it on. */
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
  /** Request log lines: one JSON object per line, or a short human line. */
  logFormat: z.enum(['json', 'pretty']).default('pretty'),
  /** A bearer token for GET /metrics; without one, /metrics answers only requests from this machine (loopback). */
  metricsToken: z.string().min(16, 'must be at least 16 characters').optional(),
  webhookRetryDelays: delays('TASKD_WEBHOOK_RETRY_DELAYS', '60,120,300,1800'),
  webhookTimeoutMs: z.coerce.number().int().min(1).default(10000),
  /** How long a claimed outbox row stays reserved; a crashed process's claims come back after it.
   *  Unset: the attempt timeout plus 20 s, so a live attempt never loses its claim. */
  webhookLeaseMs: z.coerce.number().int().min(100).optional(),
  /** How long a claimed automation run stays reserved per step; a crashed process's runs resume after it. Unset: 50 s
   *  (the longest step timeout, 30 s, plus a margin). */
  automationLeaseMs: z.coerce.number().int().min(100).optional(),
  /** Seconds between delivery attempts of a kickoff not yet delivered (the last repeats until it expires). */
  agentRetryDelays: delays('TASKD_AGENT_RETRY_DELAYS', '60,120,300,1800'),
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
  /** Read processes that run list, count and export reads off the event loop (SQLite). */
  readWorkers: z.coerce.number().int().min(0).max(16).default(2),
})

export type Config = Readonly<z.infer<typeof ConfigSchema>>

/** Builds the config from explicit values (CLI flags) over TASKD_* environment variables. */
export function loadConfig(flags: Partial<Record<keyof Config, unknown>> = {}, env: NodeJS.ProcessEnv = process.env): Config {
  const pick = (flag: unknown, name: string) => (flag !== undefined ? flag : env[name] === '' ? undefined : env[name])
  const parsed = ConfigSchema.safeParse({
    port: pick(flags.port, 'TASKD_PORT'),
    host: pick(flags.host, 'TASKD_HOST'),
    db: pick(flags.db, 'TASKD_DB'),
    // An explicit --db wins over TASKD_DATABASE_URL, as flags win over the environment.
    databaseUrl: flags.db !== undefined && flags.databaseUrl === undefined ? undefined : pick(flags.databaseUrl, 'TASKD_DATABASE_URL'),
    dbPoolSize: pick(flags.dbPoolSize, 'TASKD_DB_POOL_SIZE'),
    baseUrl: pick(flags.baseUrl, 'TASKD_BASE_URL'),
    allowPrivateTargets: pick(flags.allowPrivateTargets, 'TASKD_ALLOW_PRIVATE_TARGETS'),
    trustProxy: pick(flags.trustProxy, 'TASKD_TRUST_PROXY'),
    rateLimit: pick(flags.rateLimit, 'TASKD_RATE_LIMIT'),
    logFormat: pick(flags.logFormat, 'TASKD_LOG_FORMAT'),
    metricsToken: pick(flags.metricsToken, 'TASKD_METRICS_TOKEN'),
    webhookRetryDelays: pick(flags.webhookRetryDelays, 'TASKD_WEBHOOK_RETRY_DELAYS'),
    webhookTimeoutMs: pick(flags.webhookTimeoutMs, 'TASKD_WEBHOOK_TIMEOUT_MS'),
    webhookLeaseMs: pick(flags.webhookLeaseMs, 'TASKD_WEBHOOK_LEASE_MS'),
    automationLeaseMs: pick(flags.automationLeaseMs, 'TASKD_AUTOMATION_LEASE_MS'),
    agentRetryDelays: pick(flags.agentRetryDelays, 'TASKD_AGENT_RETRY_DELAYS'),
    agentStallMinutes: pick(flags.agentStallMinutes, 'TASKD_AGENT_STALL_MINUTES'),
    agentLeaseMs: pick(flags.agentLeaseMs, 'TASKD_AGENT_LEASE_MS'),
    aiUrl: pick(flags.aiUrl, 'TASKD_AI_URL'),
    aiKey: pick(flags.aiKey, 'TASKD_AI_KEY'),
    aiModel: pick(flags.aiModel, 'TASKD_AI_MODEL'),
    aiTimeoutMs: pick(flags.aiTimeoutMs, 'TASKD_AI_TIMEOUT_MS'),
    logLevel: pick(flags.logLevel, 'TASKD_LOG_LEVEL'),
    queryTimeoutMs: pick(flags.queryTimeoutMs, 'TASKD_QUERY_TIMEOUT_MS'),
    readWorkers: pick(flags.readWorkers, 'TASKD_READ_WORKERS'),
  })
  if (!parsed.success) {
    const msg = parsed.error.issues.map((i) => `${i.path.join('.') || 'config'}: ${i.message}`).join('; ')
    throw new Error(`invalid configuration: ${msg}`)
  }
  // `--db postgres://...` (or TASKD_DB) names a PostgreSQL database too.
  const data = parsed.data
  if (!data.databaseUrl && /^postgres(ql)?:\/\//.test(data.db)) return Object.freeze({ ...data, databaseUrl: data.db })
  return Object.freeze(data)
}

/** The public address used in links: TASKD_BASE_URL, or the listening address. */
export function publicBaseUrl(config: Config): string {
  return (config.baseUrl ?? `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`).replace(/\/+$/, '')
}

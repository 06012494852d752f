// taskd doctor: checks what a running taskd needs and prints one line per check, `ok  …` or `fix …` with what to do.
import Database from 'better-sqlite3'
import { sqliteBinding } from '../assets.js'
import fs from 'node:fs'
import path from 'node:path'
import { loadConfig, type Config } from '../config.js'
import { keyFileFor } from '../crypto.js'
import { SCHEMA_VERSION } from '../db/migrate.js'
import { isLoopback } from '../http/rate-limit.js'
import { VERSION } from '../version.js'
import { closeDeliveryAgents, sendWebhook } from '../delivery/send.js'
import type { DbFlags } from './options.js'

const GiB = 1024 ** 3
type Check = { ok: boolean; text: string }
const ok = (text: string): Check => ({ ok: true, text })
const fix = (text: string): Check => ({ ok: false, text })

/** What to do about a database at another schema version than this taskd's, if it is. */
function schemaFix(version: number): Check | undefined {
  if (version > SCHEMA_VERSION) return fix(`database: schema version ${version} is newer than this taskd (${VERSION}, ${SCHEMA_VERSION}): upgrade taskd`)
  if (version < SCHEMA_VERSION) return fix(`database: schema version ${version}, this taskd needs ${SCHEMA_VERSION}: run taskd migrate`)
  return undefined
}

async function database(config: Config): Promise<Check> {
  if (config.databaseUrl) {
    let version: number
    try {
      const { postgresSchemaVersion } = await import('../db/postgres.js') // loaded only on PostgreSQL
      version = await postgresSchemaVersion(config.databaseUrl)
    } catch (err) {
      return fix(`database: cannot use PostgreSQL: ${(err as Error).message}`)
    }
    return schemaFix(version) ?? ok(`database: PostgreSQL reachable, schema at version ${version}`)
  }
  if (!fs.existsSync(config.db)) return fix(`database: no database at ${config.db}: run taskd setup (or taskd serve) to create it`)
  let db: Database.Database | undefined
  try {
    db = new Database(config.db, { readonly: true, fileMustExist: true, nativeBinding: sqliteBinding() })
    const version = db.pragma('user_version', { simple: true }) as number
    const check = db.pragma('quick_check', { simple: true })
    if (check !== 'ok') return fix(`database: ${config.db} fails quick_check (${String(check)}): restore a backup (taskd restore)`)
    return schemaFix(version) ?? ok(`database: ${config.db} passes quick_check, schema at version ${version}`)
  } catch (err) {
    return fix(`database: cannot open ${config.db}: ${(err as Error).message}`)
  } finally {
    db?.close()
  }
}

function key(config: Config): Check {
  if (config.masterKey) return ok('master key: TASKD_MASTER_KEY is set')
  if (config.databaseUrl) return fix('master key: PostgreSQL needs TASKD_MASTER_KEY, the same in every process (make one with: openssl rand -hex 32)')
  const file = keyFileFor(config.db)
  if (!fs.existsSync(file))
    return fix(`master key: no key file ${file}: serve creates one; if this database holds secrets, put back the key they were sealed with`)
  return ownerOnly('master key', file)
}

/** A file only its owner may read or change, or what to run. */
function ownerOnly(label: string, file: string): Check {
  const mode = fs.statSync(file).mode & 0o777
  if (mode & 0o077) return fix(`${label}: ${file} is readable by others (mode ${mode.toString(8)}): chmod 600 ${file}`)
  return ok(`${label}: ${file}, owner-only`)
}

/** The config file loadConfig read, if any: it may hold master_key, ai_key and metrics_token, so owner-only like the key file. */
const configFile = (config: Config): Check | undefined => (config.configFile === undefined ? undefined : ownerOnly('config file', config.configFile))

function baseUrl(config: Config): Check {
  if (!config.baseUrl) {
    if (isLoopback(config.host)) return ok('base URL: unset; links use the listening address, fine on this machine')
    return fix(`base URL: unset while serving on ${config.host}: set TASKD_BASE_URL (base_url) to the address people and webhooks use`)
  }
  if (new URL(config.baseUrl).protocol === 'http:' && !isLoopback(new URL(config.baseUrl).hostname))
    return fix(`base URL: ${config.baseUrl} is plain http on a non-local host: serve behind https and set TASKD_BASE_URL to the https address`)
  return ok(`base URL: ${config.baseUrl}`)
}

function disk(config: Config): Check {
  if (config.databaseUrl) return ok("free disk: not checked on PostgreSQL (watch the database server's disk)")
  const folder = path.dirname(path.resolve(config.db))
  const dir = fs.existsSync(folder) ? folder : path.resolve('.')
  const s = fs.statfsSync(dir)
  const free = s.bavail * s.bsize
  const share = s.blocks ? s.bavail / s.blocks : 1
  const text = `${(free / GiB).toFixed(1)} GiB free (${Math.round(share * 100)}%) where the database lives (${dir})`
  return free < GiB || share < 0.1 ? fix(`free disk: only ${text}: free space or move the database`) : ok(`free disk: ${text}`)
}

async function webhook(config: Config, url: string): Promise<Check> {
  const sent = await sendWebhook({
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': `taskd/${VERSION} (doctor)` },
    body: JSON.stringify({ type: 'taskd.doctor', message: 'a test request from taskd doctor' }),
    timeoutMs: config.webhookTimeoutMs,
    allowPrivate: config.allowPrivateTargets,
  })
  await closeDeliveryAgents()
  if (sent.outcome === 'ok') return ok(`webhooks: a test POST to ${url} answered ${sent.statusCode}`)
  if (sent.outcome === 'refused_target')
    return fix(
      `webhooks: ${url} was refused before sending (${sent.error ?? 'a private or loopback address'}); taskd sends to private addresses only with TASKD_ALLOW_PRIVATE_TARGETS=true`,
    )
  return fix(`webhooks: a test POST to ${url} failed: ${sent.statusCode ?? sent.outcome}${sent.error ? ` (${sent.error})` : ''}`)
}

export async function doctor(o: DbFlags & { webhookUrl?: string }): Promise<void> {
  const config = loadConfig({ db: o.db, config: o.config })
  const checks = [await database(config), key(config), configFile(config), baseUrl(config), disk(config)].filter((c) => c !== undefined)
  if (o.webhookUrl) checks.push(await webhook(config, o.webhookUrl))
  for (const c of checks) process.stdout.write(`${c.ok ? 'ok ' : 'fix'} ${c.text}\n`)
  if (checks.some((c) => !c.ok)) process.exitCode = 1
}

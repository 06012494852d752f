// taskd setup: writes taskd.toml beside the database (rate limit on, unlike a bare `serve`), creates the database and
// its key file, and says what to run next.
import fs from 'node:fs'
import path from 'node:path'
import { parse as parseToml, stringify } from 'smol-toml'
import { CONFIG_FILES, loadConfig } from '../config.js'
import { loadSecretBox } from '../crypto.js'
import { openForCli } from './open.js'
import type { DbFlags } from './options.js'

export async function setup(o: DbFlags & { baseUrl?: string; host: string; port: string; force?: boolean }): Promise<void> {
  const named = o.config ?? (process.env.TASKD_CONFIG || undefined)
  const namedExists = named !== undefined && fs.existsSync(named)
  // Checked as the server will read them (a bad port or URL is refused here, not at the first serve); a config file
  // that is there already is read too, and with --force its other settings (master_key, ai_key, ...) are kept.
  const config = loadConfig(
    { db: o.db, host: o.host, port: o.port, baseUrl: o.baseUrl, rateLimit: 'on', config: namedExists ? named : undefined },
    { ...process.env, TASKD_CONFIG: '' },
  )
  if (config.databaseUrl && !named) throw new Error('on PostgreSQL, name the file to write with --config FILE')
  const file = named ?? path.join(path.dirname(config.db), CONFIG_FILES[0])
  const found = named ? (namedExists ? named : undefined) : config.configFile
  if (found && !o.force) throw new Error(`${found} exists; run again with --force to replace it`)
  const kept = found ? ((found.endsWith('.json') ? JSON.parse(fs.readFileSync(found, 'utf8')) : parseToml(fs.readFileSync(found, 'utf8'))) as object) : {}
  const settings = { ...kept, host: config.host, port: config.port, ...(config.baseUrl ? { base_url: config.baseUrl } : {}), rate_limit: 'on' }
  const { db } = await openForCli({ db: o.db })
  await db.close()
  if (!config.databaseUrl && !config.masterKey) loadSecretBox(config.db) // the key file, owner-only, before any secret is stored
  if (found) fs.rmSync(found)
  fs.writeFileSync(file, `# taskd settings (keys: the TASKD_ variables without TASKD_, in lower case)\n${stringify(settings)}\n`, { mode: 0o600 })
  process.stdout.write(`wrote ${file}:\n${stringify(settings)}\n`)
  process.stdout.write(`next: taskd serve${o.db ? ` --db ${o.db}` : ''}${named ? ` --config ${named}` : ''}, then taskd doctor\n`)
}

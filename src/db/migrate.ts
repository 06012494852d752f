// Schema versions: version 1 is schema.sql; later versions append steps to MIGRATIONS.
import type Database from 'better-sqlite3'
import fs from 'node:fs'
import { fileURLToPath } from 'node:url'

const schemaFile = fileURLToPath(new URL('../../../schema.sql', import.meta.url))

/** Steps after the base schema; entry i brings version i+1 to i+2. */
const MIGRATIONS: string[] = []

export const SCHEMA_VERSION = 1 + MIGRATIONS.length

export function migrate(raw: Database.Database): { from: number; to: number } {
  const from = raw.pragma('user_version', { simple: true }) as number
  if (from > SCHEMA_VERSION) throw new Error(`database schema version ${from} is newer than this taskd (${SCHEMA_VERSION})`)
  if (from === SCHEMA_VERSION) return { from, to: from }
  raw
    .transaction(() => {
      if (from === 0) raw.exec(fs.readFileSync(schemaFile, 'utf8'))
      for (let v = Math.max(from, 1); v < SCHEMA_VERSION; v++) raw.exec(MIGRATIONS[v - 1])
      raw.pragma(`user_version = ${SCHEMA_VERSION}`)
    })
    .immediate()
  return { from, to: SCHEMA_VERSION }
}

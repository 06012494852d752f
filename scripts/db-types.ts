// Generates src/db/types.ts (Kysely table types) from schema.sql, so the schema is the one source of the row types.
// `npm run db:types` rewrites the file; test/db/types.test.ts fails when the checked-in file differs from what this prints.
import Database from 'better-sqlite3'
import fs from 'node:fs'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('../../', import.meta.url))
export const schemaFile = `${root}schema.sql`
export const typesFile = `${root}src/db/types.ts`

const pascal = (table: string) => table.replace(/(^|_)([a-z])/g, (_m, _s, c: string) => c.toUpperCase())

/** `col TEXT ... CHECK (col IN ('a', 'b'))` gives the column the literal union 'a' | 'b'. */
function enumsOf(createSql: string): Map<string, string[]> {
  const out = new Map<string, string[]>()
  for (const m of createSql.matchAll(/CHECK\s*\(\s*(\w+)\s+IN\s*\(([^)]*)\)\s*\)/gi)) {
    out.set(
      m[1],
      [...m[2].matchAll(/'([^']*)'/g)].map((v) => v[1]),
    )
  }
  return out
}

const TS_TYPE: Record<string, string> = { TEXT: 'string', INTEGER: 'number', REAL: 'number', BLOB: 'Buffer' }

export function generateTypes(schema = fs.readFileSync(schemaFile, 'utf8')): string {
  const db = new Database(':memory:')
  try {
    db.exec(schema)
    // Ordinary tables only: a virtual table (the search index's FTS5 table) and its shadow tables are read by raw SQL.
    const tables = db
      .prepare(
        "SELECT m.name, m.sql FROM sqlite_master m JOIN pragma_table_list t ON t.schema = 'main' AND t.name = m.name WHERE m.type = 'table' AND t.type = 'table' AND m.name NOT LIKE 'sqlite_%' ORDER BY m.rowid",
      )
      .all() as {
      name: string
      sql: string
    }[]
    const lines = ['// Generated from schema.sql by scripts/db-types.ts (npm run db:types). Do not edit by hand.', '']
    for (const t of tables) {
      const enums = enumsOf(t.sql)
      const cols = db.prepare(`SELECT name, type, "notnull" AS nn, pk FROM pragma_table_info(?)`).all(t.name) as {
        name: string
        type: string
        nn: number
        pk: number
      }[]
      lines.push(`export interface ${pascal(t.name)}Table {`)
      for (const c of cols) {
        const base =
          enums
            .get(c.name)
            ?.map((v) => `'${v}'`)
            .join(' | ') ?? TS_TYPE[c.type.toUpperCase()]
        if (!base) throw new Error(`${t.name}.${c.name}: no TypeScript type for SQL type "${c.type}"`)
        lines.push(`  ${c.name}: ${base}${c.nn || c.pk ? '' : ' | null'}`)
      }
      lines.push('}', '')
    }
    lines.push('export interface DB {', ...tables.map((t) => `  ${t.name}: ${pascal(t.name)}Table`), '}', '')
    return lines.join('\n')
  } finally {
    db.close()
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const text = generateTypes()
  if (process.argv.includes('--write')) fs.writeFileSync(typesFile, text)
  else process.stdout.write(text)
}

// src/db/types.ts is generated from schema.sql: the checked-in file must be exactly what the generator prints.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import { test } from 'node:test'
import { generateTypes, typesFile } from '../../scripts/db-types.js'

test('src/db/types.ts matches schema.sql (run `npm run db:types` after changing the schema)', () => {
  assert.equal(fs.readFileSync(typesFile, 'utf8'), generateTypes())
})

test('the generator reads columns, nullability and CHECK enums', () => {
  const out = generateTypes("CREATE TABLE things (id TEXT PRIMARY KEY, kind TEXT NOT NULL CHECK (kind IN ('a', 'b')), n INTEGER, data BLOB NOT NULL);")
  assert.match(out, /export interface ThingsTable \{\n {2}id: string\n {2}kind: 'a' \| 'b'\n {2}n: number \| null\n {2}data: Buffer\n\}/)
  assert.match(out, /export interface DB \{\n {2}things: ThingsTable\n\}/)
})

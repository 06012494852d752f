// fixedQuery: compiled once, then each call binds its own arguments in the right places.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { sql as rawSql } from 'kysely'
import type { Q } from '../../src/db/database.js'
import { openSqlite } from '../../src/db/sqlite.js'
import { fixedQuery, rowsOf } from '../../src/db/sql.js'
import { dbRun } from '../helpers/db.js'

test("fixedQuery binds each call's arguments, keeps constants, and maps a repeated argument to every use", async () => {
  const db = openSqlite({ file: ':memory:', readWorkers: 0 })
  await dbRun(db, `INSERT INTO users VALUES ('u1', 'a@x', 'Ann', 'owner', 'human', '2026-01-01'), ('u2', 'b@x', 'Bob', 'member', 'agent', '2026-01-02')`)
  let builds = 0
  const find = fixedQuery((q: Q, id: string, name: string) => {
    builds++
    return q
      .selectFrom('users')
      .select('email')
      .where('kind', '=', 'human')
      .where((eb) => eb.or([eb('id', '=', id), eb('name', '=', name)]))
      .where(rawSql<boolean>`${id} = ${id}`)
  })
  assert.deepEqual(await rowsOf(db.q, find(db.q, 'u1', 'nobody')), [{ email: 'a@x' }])
  assert.deepEqual(await rowsOf(db.q, find(db.q, 'nobody', 'Ann')), [{ email: 'a@x' }])
  assert.deepEqual(await rowsOf(db.q, find(db.q, 'u2', 'Bob')), [], 'the constant kind = human still applies')
  assert.equal(builds, 1)
  const q = find(db.q, 'x', 'y')
  assert.deepEqual(q.parameters, ['human', 'x', 'y', 'x', 'x'])
  await db.close()
})

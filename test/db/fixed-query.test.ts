// fixedQuery: compiled once, then each call binds its own arguments in the right places.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { sql as rawSql } from 'kysely'
import { openDatabase } from '../../src/db/open.js'
import { fixedQuery, qb } from '../../src/db/sql.js'

test("fixedQuery binds each call's arguments, keeps constants, and maps a repeated argument to every use", () => {
  const sql = openDatabase(':memory:')
  sql.raw.exec(`INSERT INTO users VALUES ('u1', 'a@x', 'Ann', 'owner', 'human', '2026-01-01'), ('u2', 'b@x', 'Bob', 'member', 'agent', '2026-01-02')`)
  let builds = 0
  const find = fixedQuery((id: string, name: string) => {
    builds++
    return qb
      .selectFrom('users')
      .select('email')
      .where('kind', '=', 'human')
      .where((eb) => eb.or([eb('id', '=', id), eb('name', '=', name)]))
      .where(rawSql<boolean>`${id} = ${id}`)
  })
  assert.deepEqual(sql.all(find('u1', 'nobody')), [{ email: 'a@x' }])
  assert.deepEqual(sql.all(find('nobody', 'Ann')), [{ email: 'a@x' }])
  assert.deepEqual(sql.all(find('u2', 'Bob')), [], 'the constant kind = human still applies')
  assert.equal(builds, 1)
  const q = find('x', 'y')
  assert.deepEqual(q.parameters, ['human', 'x', 'y', 'x', 'x'])
  sql.raw.close()
})

// The permission matrix: read/write/full tokens × owner/admin/member × member/non-member of the board. Owners and
// admins see and manage every board; a member only the boards they belong to, and only a board admin renames one.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { startTestApp, type TestApp } from '../helpers/app.js'
import type { Permission } from '../../src/access/roles.js'

type Role = 'owner' | 'admin' | 'member'
let t: TestApp
const tokens: Record<string, string> = {}
let boardIn = '',
  boardOut = ''

before(async () => {
  t = await startTestApp()
  const users = { owner: await t.user('owner'), admin: await t.user('admin'), member: await t.user('member') }
  const stranger = await t.user('member')
  const strangerToken = await t.token(stranger.id, 'write')
  for (const role of ['owner', 'admin', 'member'] as Role[]) {
    for (const p of ['read', 'write', 'full'] as Permission[])
      if (!(role === 'member' && p === 'full')) tokens[`${role}:${p}`] = await t.token(users[role].id, p)
  }
  boardIn = (await t.req('POST', '/v1/boards', { token: strangerToken, body: { name: 'In' } })).body.board.id
  boardOut = (await t.req('POST', '/v1/boards', { token: strangerToken, body: { name: 'Out' } })).body.board.id
  for (const u of Object.values(users))
    assert.equal((await t.req('POST', `/v1/boards/${boardIn}/members`, { token: strangerToken, body: { user: u.id } })).status, 201)
})
after(() => t.close())

describe('permission matrix', () => {
  for (const role of ['owner', 'admin', 'member'] as Role[]) {
    for (const perm of ['read', 'write', 'full'] as Permission[]) {
      if (role === 'member' && perm === 'full') continue
      for (const inBoard of [true, false]) {
        test(`${role} with a ${perm} token, ${inBoard ? 'member' : 'non-member'} of the board`, async () => {
          const token = tokens[`${role}:${perm}`]
          const board = inBoard ? boardIn : boardOut
          const sees = inBoard || role !== 'member'
          const get = await t.req('GET', `/v1/boards/${board}`, { token })
          assert.equal(get.status, sees ? 200 : 404)
          const list = await t.req('GET', `/v1/cards?board=${board}`, { token })
          assert.equal(list.status, 200)
          const card = await t.req('POST', '/v1/cards', { token, body: { title: 'x', board } })
          assert.equal(card.status, perm === 'read' ? 403 : sees ? 201 : 404, card.text)
          if (perm === 'read') assert.equal(card.body.error.code, 'forbidden')
          const patch = await t.req('PATCH', `/v1/boards/${board}`, { token, body: { description: 'd' } })
          // The users joined the board as members (not board admins): only the workspace's owners and admins may rename it.
          assert.equal(patch.status, perm === 'read' ? 403 : !sees ? 404 : role === 'member' ? 403 : 200, patch.text)
          const users = await t.req('POST', '/v1/users', { token, body: { email: `${role}-${perm}-${inBoard}@x.test`, name: 'N' } })
          assert.equal(users.status, perm === 'full' && role !== 'member' ? 201 : 403, users.text)
          const me = await t.req('GET', '/v1/users/me', { token })
          assert.equal(me.status, 200)
          assert.equal(me.body.user.role, role)
          const full = await t.req('POST', '/v1/tokens', { token, body: { name: 'f', permission: 'full' } })
          assert.equal(full.status, perm === 'read' ? 403 : role === 'member' ? 422 : perm === 'full' ? 201 : 403, full.text)
        })
      }
    }
  }
})

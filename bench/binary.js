// The single binary's size and cold start: from spawning `taskd serve` on an empty database to the first 200 of
// GET /v1/users/me with the setup token, over several runs (median). Build it first: npm run build:binary.
//   node bench/binary.js [--runs 15] [--binary dist/taskd-linux-x64] [--checkout]   (--checkout: node bin/taskd.js instead)
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '15' },
    binary: { type: 'string', default: 'dist/taskd-linux-x64' },
    checkout: { type: 'boolean', default: false },
  },
})
const command = values.checkout ? [process.execPath, path.resolve('bin/taskd.js')] : [path.resolve(values.binary)]

async function coldStart() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-bench-binary-'))
  const started = performance.now()
  const child = spawn(command[0], [...command.slice(1), 'serve', '--db', path.join(dir, 'taskd.db'), '--port', '0'], {
    cwd: dir,
    env: { PATH: '/usr/bin:/bin', HOME: dir },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  try {
    const { url, token } = await new Promise((resolve, reject) => {
      let out = ''
      child.stderr.on('data', (chunk) => (out += chunk)) // the request log, shown only if taskd fails
      child.stdout.on('data', (chunk) => {
        out += chunk
        const url = /taskd listening on (\S+)/.exec(out)?.[1]
        if (url) resolve({ url, token: /Setup token[^:]*: (tt_\w+)/.exec(out)?.[1] })
      })
      child.once('exit', (code) => reject(new Error(`taskd exited (${code}): ${out}`)))
    })
    const res = await fetch(`${url}/v1/users/me`, { headers: { authorization: `Bearer ${token}` } })
    if (res.status !== 200) throw new Error(`GET /v1/users/me answered ${res.status}`)
    return performance.now() - started
  } finally {
    // A child that already exited (it failed to start) is not waited for again.
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      await exited
    }
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

const times = []
for (let i = 0; i < Number(values.runs); i++) times.push(await coldStart())
times.sort((a, b) => a - b)
const ms = (t) => `${t.toFixed(0)} ms`
if (!values.checkout) console.log(`size: ${(fs.statSync(command[0]).size / 1e6).toFixed(1)} MB`)
console.log(
  `cold start to the first 200 (${times.length} runs): median ${ms(times[Math.floor(times.length / 2)])}, min ${ms(times[0])}, max ${ms(times.at(-1))}`,
)

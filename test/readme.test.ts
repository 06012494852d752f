// The README's shell blocks run as pasted on a fresh install, in the order written, against a fresh `taskd serve`:
// - the first block (install and start, install and test) is checked, not run: this checkout is installed, and npm test
//   is what runs this file;
// - a block that runs `node bin/taskd.js serve` is the server: started as written, in the background, on a free port;
// - a block whose first line is `# illustration: <why>` is not run (it needs what a fresh install has not: Docker, n8n,
//   PostgreSQL, a stopped server);
// - every other block runs in one bash, one after the other (variables carry over), with `set -euo pipefail` and curl
//   failing on an HTTP error status, in a folder of its own whose `bin` is this checkout's (so `./data/taskd.db`, the
//   default database, and `./backups` are made there).
// Ports the README names (8080 for taskd, 9000 for the local receiver) become free ones; nothing but 127.0.0.1 is called.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'
import { testDialect } from './helpers/database.js'
import { cleanEnv, ROOT, stopChild } from './helpers/serve.js'
import { until } from './helpers/until.js'

interface Block {
  line: number
  text: string
}

/** The ```sh blocks of a Markdown text, with the line each starts on. */
function shellBlocks(markdown: string): Block[] {
  const blocks: Block[] = []
  const lines = markdown.split('\n')
  for (let i = 0; i < lines.length; i++) {
    if (!/^```(sh|bash|shell)\s*$/.test(lines[i])) continue
    const start = i + 1
    while (++i < lines.length && !lines[i].startsWith('```'));
    blocks.push({ line: start + 1, text: lines.slice(start, i).join('\n') })
  }
  return blocks
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = net.createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo
      s.close(() => resolve(port))
    })
  })

// The README's install is the SQLite one: run once, in the SQLite run.
const skip = testDialect === 'postgres' ? 'the README starts taskd on SQLite' : false

test('every shell block of the README runs as pasted on a fresh install, in order', { skip }, async () => {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8')
  const [first, ...rest] = shellBlocks(readme)
  assert.match(first.text, /^npm ci && node bin\/taskd\.js serve\b/m, 'the first lines: install and start')
  assert.match(first.text, /^npm ci && npm test\b/m, 'the first lines: install and run the tests')
  assert.ok(readme.indexOf(first.text) < 200, 'the two commands are the first thing the README shows')

  const illustrations = rest.filter((b) => /^# illustration: \S/.test(b.text))
  const servers = rest.filter((b) => !illustrations.includes(b) && /^[^#\n]*node bin\/taskd\.js serve\b[^&\n]*$/m.test(b.text))
  const scripts = rest.filter((b) => !illustrations.includes(b) && !servers.includes(b))
  assert.equal(servers.length, 1, 'one block starts the server')
  assert.equal(servers[0].text.split('\n').length, 1, 'the server block is that one command')
  assert.ok(scripts.length >= 5, `${scripts.length} blocks to run`)

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-readme-'))
  fs.symlinkSync(path.join(ROOT, 'bin'), path.join(dir, 'bin'))
  const env = { ...cleanEnv }
  const receiverPort = await freePort()
  let server: ReturnType<typeof spawn> | undefined
  let run: ReturnType<typeof spawn> | undefined
  try {
    // The server, as its block says (its comment dropped), on a free port.
    const command = servers[0].text.replace(/\s+#.*$/, '')
    // `env` takes the block's VAR=value words; exec, so that stopping the child stops taskd.
    const started = spawn('bash', ['-c', `exec env ${command} --port 0`], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] })
    server = started
    let out = ''
    const url = await new Promise<string>((resolve, reject) => {
      started.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString()
        const listening = /taskd listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)
        if (listening) resolve(listening[1])
      })
      started.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()))
      started.once('exit', (code) => reject(new Error(`serve exited (${code}): ${out}`)))
    })
    assert.match(out, /Setup token \(Full Access, shown only once\): tt_\w+/)
    const port = new URL(url).port
    const script = [
      'set -euo pipefail',
      // A request the API refuses fails the run, with the answer on stderr.
      'curl() { command curl --fail-with-body "$@"; }',
      ...scripts.map((b) => `# README.md line ${b.line}\n${b.text}\necho "=== block at line ${b.line} done"`),
    ]
      .join('\n')
      .replace(/\b8080\b/g, port)
      .replace(/\b9000\b/g, String(receiverPort))
    // Its own process group, so the receiver it leaves in the background is stopped with it.
    const bash = spawn('bash', ['-c', script], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
    run = bash
    let log = ''
    bash.stdout!.on('data', (chunk: Buffer) => (log += chunk.toString()))
    bash.stderr!.on('data', (chunk: Buffer) => (log += chunk.toString()))
    // 'exit', not 'close': the receiver left in the background holds the output pipes open.
    const code = await new Promise<number | null>((resolve) => bash.once('exit', (c) => resolve(c)))
    assert.equal(code, 0, `the README's blocks failed:\n${log.slice(-4000)}`)
    for (const b of scripts) assert.ok(log.includes(`=== block at line ${b.line} done`), `block at line ${b.line} ran`)
    assert.match(log, /"accepted":true/, 'the incoming endpoint took the request')
    assert.ok(
      fs.readdirSync(path.join(dir, 'backups')).some((f) => f.endsWith('.db')),
      'the backup was written',
    )
    // The receiver the webhook block left running gets the test delivery: the server block allowed it.
    await until('the README receiver prints the webhook.test delivery', () => log.includes('received webhook.test'))
    console.log(`README: ${scripts.length} blocks run, ${illustrations.length} illustrations (${illustrations.map((b) => `line ${b.line}`).join(', ')})`)
  } finally {
    if (run?.pid) {
      try {
        process.kill(-run.pid, 'SIGTERM') // the script's group: the receiver it started
      } catch {
        // already gone
      }
    }
    if (server) await stopChild(server, 15_000)
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

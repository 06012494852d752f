// Memory of a file going up and coming back down: `taskd serve` (bin/taskd.js, as users run it) on a fresh database,
// a file of --mb MB (160 by default, TASKD_MAX_FILE_BYTES raised to take it) uploaded to a card through POST /v1/files
// as one streamed multipart body, then downloaded through GET /v1/files/{id}/content and thrown away as it arrives.
// The server's resident set (VmRSS of its process, sampled every 20 ms from /proc) is reported before, at its peak
// during the upload and during the download; the sha256 of what came back is checked against what was sent. Only
// 127.0.0.1 is used.
//
//   npm run build && node bench/file-rss.js [--mb 160] [--dialects sqlite,postgres]
//
// PostgreSQL: with TASKD_TEST_DATABASE_URL set (scripts/test-postgres.sh prints it), a throwaway database is made on
// that cluster for the run and dropped after it.
import { spawn } from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const arg = (name, def) => {
  const i = process.argv.indexOf(`--${name}`)
  return i > 0 ? process.argv[i + 1] : def
}
const MB = Number(arg('mb', '160'))
const SIZE = MB * 1_048_576
const dialects = arg('dialects', process.env.TASKD_TEST_DATABASE_URL ? 'sqlite,postgres' : 'sqlite').split(',')
const BOUNDARY = 'fileRssBench'
const PIECE = 65_536

const rssOf = (pid) => {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))
  return m ? Number(m[1]) * 1024 : 0
}
const mb = (bytes) => `${(bytes / 1_048_576).toFixed(1)} MB`

/** Samples the process's RSS until stopped; answers the peak. */
function sampler(pid) {
  let peak = rssOf(pid)
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, rssOf(pid))
    } catch {
      // the process is gone
    }
  }, 20)
  return () => {
    clearInterval(timer)
    return Math.max(peak, rssOf(pid))
  }
}

/** The file's bytes, a known function of their offset, made piece by piece (this process never holds the file either). */
function piece(offset, length) {
  const b = Buffer.alloc(length)
  for (let i = 0; i < length; i++) b[i] = ((offset + i) * 31 + ((offset + i) >> 13)) & 0xff
  return b
}

function serve(target, env) {
  const child = spawn(process.execPath, [path.join(root, 'bin', 'taskd.js'), 'serve', '--db', target, '--port', '0', '--host', '127.0.0.1'], {
    env: { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('TASKD_'))), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  return new Promise((resolve, reject) => {
    child.stderr.on('data', (c) => (out += c))
    child.stdout.on('data', (c) => {
      out += c
      const url = /taskd listening on (http:\/\/\S+)/.exec(out)?.[1]
      const token = /Setup token[^:]*: (tt_\w+)/.exec(out)?.[1]
      if (url && token) resolve({ child, url, token })
    })
    child.once('exit', (code) => reject(new Error(`taskd exited (${code}): ${out}`)))
  })
}

async function api(s, method, p, body) {
  const res = await fetch(s.url + p, {
    method,
    headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
    body: body && JSON.stringify(body),
  })
  return res.json()
}

/** POST /v1/files with the file written piece by piece, with the socket's backpressure; answers the reply and the sha256 sent. */
function upload(s, cardId) {
  return new Promise((resolve, reject) => {
    const head = Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="card"\r\n\r\n${cardId}\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    )
    const tail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`)
    const hash = crypto.createHash('sha256')
    const req = http.request(`${s.url}/v1/files`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${s.token}`,
        'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
        'content-length': head.length + SIZE + tail.length,
      },
    })
    req.on('error', reject)
    req.on('response', (res) => {
      let text = ''
      res.on('data', (c) => (text += c))
      res.on('end', () => resolve({ status: res.statusCode, body: JSON.parse(text), sent: hash.digest('hex') }))
    })
    req.write(head)
    let offset = 0
    const more = () => {
      while (offset < SIZE) {
        const b = piece(offset, Math.min(PIECE, SIZE - offset))
        offset += b.length
        hash.update(b)
        if (!req.write(b)) return void req.once('drain', more)
      }
      req.end(tail)
    }
    more()
  })
}

/** GET the content, hashing and dropping each piece as it arrives. */
function download(s, id) {
  return new Promise((resolve, reject) => {
    http
      .get(`${s.url}/v1/files/${id}/content`, { headers: { authorization: `Bearer ${s.token}` } }, (res) => {
        const hash = crypto.createHash('sha256')
        let size = 0
        res.on('data', (c) => {
          size += c.length
          hash.update(c)
        })
        res.on('end', () => resolve({ status: res.statusCode, size, sha256: hash.digest('hex') }))
        res.on('error', reject)
      })
      .on('error', reject)
  })
}

async function measure(dialect) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-bench-file-'))
  let target = path.join(dir, 'taskd.db')
  let drop = async () => {}
  if (dialect === 'postgres') {
    const base = process.env.TASKD_TEST_DATABASE_URL
    if (!base) throw new Error('PostgreSQL: set TASKD_TEST_DATABASE_URL (scripts/test-postgres.sh prints it)')
    const name = `taskd_file_rss_${crypto.randomBytes(4).toString('hex')}`
    const admin = new pg.Client({ connectionString: base })
    await admin.connect()
    await admin.query(`CREATE DATABASE ${name}`)
    const url = new URL(base)
    url.pathname = `/${name}`
    target = url.toString()
    drop = async () => {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await admin.end()
    }
  }
  const s = await serve(target, { TASKD_MAX_FILE_BYTES: String(SIZE), TASKD_LOG_LEVEL: 'error', TASKD_MASTER_KEY: crypto.randomBytes(32).toString('hex') })
  try {
    const { board } = await api(s, 'POST', '/v1/boards', { name: 'Bench' })
    const { card } = await api(s, 'POST', '/v1/cards', { board: board.id, title: 'Big file' })
    await download(s, 'warm-up').catch(() => {}) // the routes' first use
    const pid = s.child.pid
    const before = rssOf(pid)
    let stop = sampler(pid)
    const t0 = performance.now()
    const up = await upload(s, card.id)
    const upMs = performance.now() - t0
    const upPeak = stop()
    if (up.status !== 201) throw new Error(`upload answered ${up.status}: ${JSON.stringify(up.body)}`)
    if (up.body.file.sha256 !== up.sent) throw new Error('the stored sha256 is not that of the bytes sent')
    const between = rssOf(pid)
    stop = sampler(pid)
    const t1 = performance.now()
    const down = await download(s, up.body.file.id)
    const downMs = performance.now() - t1
    const downPeak = stop()
    if (down.status !== 200 || down.size !== SIZE || down.sha256 !== up.sent) throw new Error(`download: ${JSON.stringify(down)}`)
    return {
      dialect,
      file: mb(SIZE),
      rss_before: mb(before),
      upload_peak_growth: mb(upPeak - before),
      download_peak_growth: mb(downPeak - between),
      upload_s: (upMs / 1000).toFixed(1),
      download_s: (downMs / 1000).toFixed(1),
    }
  } finally {
    s.child.kill('SIGTERM')
    await new Promise((r) => s.child.once('exit', r))
    await drop()
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

const rows = []
for (const d of dialects) rows.push(await measure(d))
console.table(rows)

// The web app's build: Vite with Preact, from web/ into dist/web/ (hashed files under assets/, .vite/manifest.json),
// plus a gzip copy (`<file>.gz`, level 9) of each text file over 1 KB, and dist/web/files.json, the list of built files
// (the copies with them) that taskd serves (src/http/web.ts) and embeds in the binary.
import preact from '@preact/preset-vite'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import zlib from 'node:zlib'
import { defineConfig, type Plugin } from 'vite'

const here = path.dirname(fileURLToPath(import.meta.url))
const outDir = path.resolve(here, '../dist/web')

const COMPRESSIBLE = new Set(['.js', '.css', '.html', '.svg', '.json', '.txt', '.map'])

/** Writes the gzip copies, then files.json: every built file's path under dist/web/, but the manifest. */
const listFiles = (): Plugin => ({
  name: 'taskd-list-files',
  apply: 'build',
  closeBundle() {
    const walk = (dir: string): string[] =>
      fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
        const full = path.join(dir, e.name)
        return e.isDirectory() ? walk(full) : [path.relative(outDir, full).split(path.sep).join('/')]
      })
    const built = walk(outDir).filter((f) => !f.startsWith('.vite/') && f !== 'files.json' && !f.endsWith('.gz'))
    const files = [...built]
    for (const f of built) {
      const body = fs.readFileSync(path.join(outDir, f))
      if (!COMPRESSIBLE.has(path.extname(f)) || body.length <= 1024) continue
      fs.writeFileSync(path.join(outDir, `${f}.gz`), zlib.gzipSync(body, { level: 9 }))
      files.push(`${f}.gz`)
    }
    fs.writeFileSync(path.join(outDir, 'files.json'), JSON.stringify(files.sort()))
  },
})

export default defineConfig({
  root: here,
  base: '/',
  plugins: [preact({ devToolsEnabled: false, prefreshEnabled: false }), listFiles()],
  build: {
    outDir,
    emptyOutDir: true,
    manifest: true,
    target: 'es2022',
    sourcemap: false,
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
    chunkSizeWarningLimit: 300,
  },
  server: { proxy: { '/v1': 'http://127.0.0.1:8080' } },
})

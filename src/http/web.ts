// The web app at / (web/, built by Vite into dist/web/; SEA assets in the single binary). The build lists its files in
// dist/web/files.json, with a gzip copy `<file>.gz` of each text file over 1 KB, sent to clients that accept gzip (a
// copy is never served by its own name). /assets/* (hashed names) are cached for good, and every other GET asking for
// text/html outside the API and the operational routes answers index.html, so the app's own routes (/boards/...,
// /cards/KEY, /login/<token>) load it.
import type express from 'express'
import path from 'node:path'
import { asset } from '../assets.js'

/** The app's Content-Security-Policy: its own scripts, styles and API only, nothing inline, never framed. */
export const WEB_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ')

/** Paths the app never answers: the API, MCP and the operational routes keep their own answers (a JSON 404 at worst). */
const NOT_THE_APP = /^\/(v1|mcp|healthz|readyz|metrics)(\/|$)/

interface WebFile {
  body: Buffer
  gzip?: Buffer
}

/** The built files by their path under dist/web/ (e.g. `assets/index-3f2a.js`), or null when the app was not built. */
function loadFiles(): Set<string> | null {
  try {
    return new Set(JSON.parse(asset('dist/web/files.json').toString('utf8')) as string[])
  } catch {
    return null
  }
}

export function webApp(): express.RequestHandler {
  let names: Set<string> | null | undefined
  const loaded = new Map<string, WebFile>()
  const file = (name: string): WebFile => {
    let f = loaded.get(name)
    if (!f) {
      f = { body: asset(`dist/web/${name}`), gzip: names?.has(`${name}.gz`) ? asset(`dist/web/${name}.gz`) : undefined }
      loaded.set(name, f)
    }
    return f
  }
  const send = (req: express.Request, res: express.Response, name: string, cache: string) => {
    const f = file(name)
    res.type(path.extname(name))
    res.setHeader('Cache-Control', cache)
    res.setHeader('X-Content-Type-Options', 'nosniff')
    res.vary('Accept-Encoding')
    if (f.gzip && req.acceptsEncodings('gzip', 'identity') === 'gzip') {
      res.setHeader('Content-Encoding', 'gzip')
      res.send(f.gzip)
    } else res.send(f.body)
  }
  return (req, res, next) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || NOT_THE_APP.test(req.path)) return next()
    names ??= loadFiles()
    if (!names) return next()
    const name = req.path.slice(1)
    if (name.endsWith('.gz')) return next()
    if (name.startsWith('assets/')) return names.has(name) ? send(req, res, name, 'public, max-age=31536000, immutable') : next()
    if (name !== 'index.html' && names.has(name) && !name.startsWith('.')) return send(req, res, name, 'public, max-age=3600')
    // A browser's page load asks for text/html by name; a client that accepts anything (*/*) keeps the JSON 404.
    if (!/\btext\/html\b/i.test(req.headers.accept ?? '')) return next()
    res.setHeader('Content-Security-Policy', WEB_CSP)
    // A login link's token is in the path: never passed on to another site.
    res.setHeader('Referrer-Policy', 'no-referrer')
    res.setHeader('X-Frame-Options', 'DENY')
    send(req, res, 'index.html', 'no-cache')
  }
}

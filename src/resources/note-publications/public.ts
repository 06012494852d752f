// The public page of a published note, /v1/note-publications/public/<slug>: no token, the random slug is the key.
// JSON by default; with Accept: text/html, a page with the Markdown rendered (markdown.ts: raw HTML escaped, no
// script links) on a worker thread under a deadline (render-thread.ts), or shown as plain text when it is too long or
// takes too long; the CSP forbids scripts on top of that. Every answer is no-store, so an unpublished note is gone at once.
import { createHash } from 'node:crypto'
import type { RequestHandler } from 'express'
import type { Deps } from '../../deps.js'
import { RenderThread } from './render-thread.js'
import { publicNote } from './service.js'

const ESCAPED: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }
const escape = (text: string): string => text.replace(/[&<>"]/g, (c) => ESCAPED[c])

const HEADERS = { 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer', Vary: 'Accept' }
const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src https: data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
const STYLE =
  'body{font:16px/1.6 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#222}' +
  'pre{overflow:auto;background:#f4f4f4;padding:.75rem}code{font-family:ui-monospace,monospace}img{max-width:100%}'

/** A whole page around already safe HTML; the title is escaped here. */
const page = (title: string, content: string): string =>
  '<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">' +
  `<title>${escape(title)}</title><style>${STYLE}</style></head>\n<body><main><article><h1>${escape(title)}</h1>\n${content}</article></main></body></html>\n`

/**
 * The note's body as safe HTML: its Markdown rendered on the rendering thread, or, when that is not possible in time
 * (too long, past the deadline), the text itself escaped in a <pre>. Each body's answer is kept (by its SHA-256), the
 * most recently served RENDERED_KEPT of them, so asking for a page again and again costs a hash and a lookup, and a
 * body that ran out of time is not rendered again.
 */
const RENDERED_KEPT = 64
function noteHtml(renderer: RenderThread): (body: string) => Promise<string> {
  const rendered = new Map<string, string | null>()
  const plain = (body: string) => `<pre style="white-space:pre-wrap">${escape(body)}</pre>`
  return async (body) => {
    const key = createHash('sha256').update(body).digest('base64')
    let html = rendered.get(key)
    if (html === undefined) {
      const result = await renderer.render(body)
      if (!result.final) return plain(body)
      html = result.html
      if (rendered.size >= RENDERED_KEPT) rendered.delete(rendered.keys().next().value!)
    } else rendered.delete(key) // re-inserted below: the Map's order is the order of last use
    rendered.set(key, html)
    return html ?? plain(body)
  }
}

export function servePublicNote(deps: Deps): RequestHandler {
  const toHtml = noteHtml(new RenderThread())
  return async (req, res, next) => {
    try {
      res.set(HEADERS)
      if (req.method === 'OPTIONS' || (req.method !== 'GET' && req.method !== 'HEAD')) {
        res.set('Allow', 'GET, HEAD, OPTIONS')
        if (req.method === 'OPTIONS') res.status(204).end()
        else res.status(405).json({ error: { code: 'method_not_allowed', message: `${req.method} is not allowed here; use GET.` } })
        return
      }
      const note = await publicNote(deps, String(req.params.slug))
      if (req.accepts(['application/json', 'text/html']) === 'text/html') {
        res.set('Content-Security-Policy', CSP)
        res.status(note ? 200 : 404).type('html')
        res.send(note ? page(note.title, await toHtml(note.body)) : page('Not found', '<p>No note is published at this address.</p>'))
      } else if (note) res.json({ note_publication: note })
      else res.status(404).json({ error: { code: 'not_found', message: 'No note is published at this address.' } })
    } catch (err) {
      next(err)
    }
  }
}

// The Markdown rendering thread's entry (render-thread.ts starts it): renders each body it is given and posts the HTML
// back. The main thread gives it a deadline and ends the thread when a render passes it.
import { parentPort } from 'node:worker_threads'
import { renderMarkdown } from './markdown.js'

const port = parentPort!
port.on('message', ({ id, body }: { id: number; body: string }) => {
  let html: string | null
  try {
    html = renderMarkdown(body)
  } catch {
    html = null
  }
  port.postMessage({ id, html })
})

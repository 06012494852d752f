// The sending thread's entry (src/delivery/send-thread.ts starts it): runs each attempt it is given through sendWebhook
// (the SSRF-guarded agent of this thread) and posts the results back, those settled in the same turn in one message.
import { parentPort } from 'node:worker_threads'
import { loadUndici, sendWebhook, type SendRequest, type SendResult } from './send.js'

const port = parentPort!
// This thread exists to send: its HTTP client loads now rather than with the first batch (a failure is retried then).
loadUndici().catch(() => undefined)
let done: [number, SendResult][] = []

port.on('message', (batch: [number, SendRequest][]) => {
  for (const [id, req] of batch)
    void sendWebhook(req).then((result) => {
      if (done.push([id, result]) === 1)
        setImmediate(() => {
          port.postMessage(done)
          done = []
        })
    })
})

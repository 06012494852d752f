// Requests Node's HTTP parser refuses before Express sees them (headers too large, a malformed Content-Length):
// answered in the API's JSON error shape too, not as Node's bare status line.
import type http from 'node:http'
import type { Duplex } from 'node:stream'

const REASONS: Record<string, [number, string, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'headers_too_large', 'The request headers are too large.'],
  HPE_INVALID_CONTENT_LENGTH: [400, 'bad_request', 'The Content-Length header is not valid.'],
  HPE_UNEXPECTED_CONTENT_LENGTH: [400, 'bad_request', 'Content-Length and Transfer-Encoding cannot be sent together.'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'request_timeout', 'The request took too long to arrive.'],
}
const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' }

export function answerClientErrors(server: http.Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    // A connection reset has no one left to answer; a response already under way on this connection cannot get another.
    const current = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage
    if (err.code === 'ECONNRESET' || !socket.writable || current?.headersSent) return void socket.destroy()
    const [status, code, message] = REASONS[err.code ?? ''] ?? [400, 'bad_request', 'The request could not be read.']
    const body = JSON.stringify({ error: { code, message } })
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    )
  })
}

// /mcp: the MCP server for AI tools. Streamable HTTP, stateless: every POST is authenticated with
// taskd's own bearer-token code, gets a fresh McpServer whose tools act as that caller, and is answered as JSON.
// GET (a server-sent event stream) and DELETE (ending a session) have no meaning without sessions: 405.
import express, { type NextFunction, type Request, type Response } from 'express'
import type { CallToolResult } from '@modelcontextprotocol/server'
import type { Actor } from '../access/roles.js'
import type { Deps } from '../deps.js'
import { HttpError } from '../errors.js'
import { toHttpError } from '../http/error-handler.js'
import { type AnyRoute, type Api, checkAccess, jsonBody, runRoute } from '../http/route.js'
import { VERSION } from '../version.js'
import { type AnswerOne, answerBatch } from './batch.js'
import { type CallRoute, type Tool } from './tools.js'

export const MCP_PATH = '/mcp'

interface McpOptions {
  /** The tools, in the order tools/list shows them. */
  tools: readonly Tool[]
  authenticate: (req: Request, deps: Deps) => Promise<Actor>
  log: (msg: string, err?: unknown) => void
}

export function mcpRouter(deps: Deps, api: Api, opts: McpOptions): express.Router {
  const routes = new Map<string, AnyRoute>(api.routes.map((r) => [r.operationId, r]))
  const router = express.Router()
  const authorize = async (req: Request, res: Response, next: NextFunction) => {
    res.locals.actor = { ...(await opts.authenticate(req, deps)), requestId: res.locals.requestId as string | undefined }
    next()
  }
  router.post(MCP_PATH, authorize, jsonBody, (req: Request, res: Response) => api.track(() => serve(req, res, res.locals.actor as Actor)))
  router.all(MCP_PATH, (req) => {
    throw new HttpError(405, 'method_not_allowed', `${req.method} is not allowed on ${MCP_PATH}; this MCP server is stateless: use POST.`, undefined, {
      Allow: 'POST',
    })
  })

  const toolsByName = new Map(opts.tools.map((t) => [t.name, t]))

  async function serve(req: Request, res: Response, actor: Actor): Promise<void> {
    const call: CallRoute = async (operationId, input) => {
      const route = routes.get(operationId)
      if (!route) throw new Error(`MCP tool names an unknown route ${operationId}`)
      checkAccess(actor, route)
      return (await runRoute(route, deps, actor, req, input)).body ?? {}
    }
    // Loaded by the first request to /mcp, as app.ts loads the OpenAPI document's builder: the SDK's protocol schemas
    // and its HTTP transport (with Node's own fetch implementation) are some 9 MB a server nobody asks over MCP never
    // needs (bench/README.md).
    const [{ McpServer, WebStandardStreamableHTTPServerTransport }, { NodeStreamableHTTPServerTransport }] = await Promise.all([
      import('@modelcontextprotocol/server'),
      import('@modelcontextprotocol/node'),
    ])
    const newServer = () => {
      const server = new McpServer({ name: 'taskd', version: VERSION }, { capabilities: { tools: {} } })
      for (const tool of opts.tools) {
        server.registerTool(
          tool.name,
          { title: tool.title, description: tool.description, inputSchema: tool.input, annotations: tool.annotations },
          async (args: unknown): Promise<CallToolResult> => {
            try {
              const result = (await tool.run(call, args)) as Record<string, unknown>
              return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result }
            } catch (err) {
              return toolError(err, opts.log)
            }
          },
        )
      }
      return server
    }

    if (Array.isArray(req.body)) {
      // A batch: each message a request of its own (the stateless transport answers one request), within one budget.
      const url = `http://${req.headers.host ?? 'localhost'}${req.originalUrl}`
      const headers = new Headers()
      for (const [name, value] of Object.entries(req.headers)) if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value)
      const answerOne: AnswerOne = async (message) => {
        const server = newServer()
        const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
        try {
          await server.connect(transport)
          const response = await transport.handleRequest(new Request(url, { method: 'POST', headers }), { parsedBody: message })
          return { status: response.status, text: response.status === 202 ? undefined : await response.text() }
        } finally {
          void transport.close()
          void server.close()
        }
      }
      const answer = await answerBatch(req.body as unknown[], toolsByName, answerOne, () => res.destroyed)
      if (res.destroyed) return
      res.status(answer.status)
      if (answer.body === undefined) res.end()
      else res.type('application/json').send(answer.body)
      return
    }

    const server = newServer()
    const transport = new NodeStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
    res.on('close', () => {
      void transport.close()
      void server.close()
    })
    await server.connect(transport)
    await transport.handleRequest(req, res, req.body)
  }
  return router
}

/** An API error as a tool error: the error's message (and its details, one per line) as text, the error object as structured content. */
function toolError(err: unknown, log: (msg: string, err?: unknown) => void): CallToolResult {
  const e = toHttpError(err)
  if (e.status === 500) log('MCP tool failed', err)
  const error = { code: e.code, message: e.message, ...(e.details && { details: e.details }) }
  const lines = [e.message, ...(e.details ?? []).map((d) => `${d.path}: ${d.message}`)]
  return { isError: true, content: [{ type: 'text', text: lines.join('\n') }], structuredContent: { error } }
}

// A JSON-RPC batch at /mcp costs what one REST request may cost, not as many times that as it has messages: its tool
// calls share one budget (the rows they may answer, each once more per relation expanded) and its answer one size.
// The messages run one after another, each as a request of its own, with a turn of the event loop between them; those
// beyond the budget are answered with a JSON-RPC error and not run.
import { setImmediate as nextTurn } from 'node:timers/promises'
import { batchCostLimit, callCost, type Tool } from './tools.js'

/** Messages one batch may hold (what the MCP SDK accepts). */
export const MAX_BATCH_MESSAGES = 100
/** Bytes a batch's answer may hold together, past its first message's answer (which is kept whatever its size, as over REST). */
export const MAX_BATCH_ANSWER_BYTES = 4 * 1024 * 1024
/** The JSON-RPC error code (the implementation-defined server range) of a message beyond a batch's budget. */
export const OVER_BUDGET = -32001

type Message = Record<string, unknown>

const isObject = (v: unknown): v is Message => typeof v === 'object' && v !== null && !Array.isArray(v)
/** The id a JSON-RPC request carries; undefined for a notification (which gets no answer). */
const idOf = (m: unknown): string | number | null | undefined => (isObject(m) && 'id' in m ? (m.id as string | number | null) : undefined)

export const rpcError = (id: string | number | null, code: number, message: string) => ({ jsonrpc: '2.0', id, error: { code, message } })

/** What a message costs, by its tool and arguments (anything but a tool call costs 1). */
function costOf(tools: ReadonlyMap<string, Tool>, message: unknown): number {
  if (!isObject(message) || message.method !== 'tools/call' || !isObject(message.params)) return 1
  const tool = tools.get(String(message.params.name))
  return tool ? callCost(tool, message.params.arguments) : 1
}

/** An answer to one message of the batch: its JSON text, or nothing (a notification); `status` when it was refused whole. */
export interface OneAnswer {
  status: number
  text: string | undefined
}

export type AnswerOne = (message: unknown) => Promise<OneAnswer>

/**
 * Answers a batch message by message through `answerOne` while the budget lasts. Returns the HTTP status and body: the
 * JSON array of the answers (202 and no body when every message was a notification); a first message refused whole
 * (a header the transport requires is missing) answers the whole batch the same way.
 */
export async function answerBatch(
  batch: unknown[],
  tools: ReadonlyMap<string, Tool>,
  answerOne: AnswerOne,
  gone: () => boolean,
): Promise<{ status: number; body?: string }> {
  if (batch.length > MAX_BATCH_MESSAGES)
    return { status: 400, body: JSON.stringify(rpcError(null, -32600, `Invalid Request: a batch holds at most ${MAX_BATCH_MESSAGES} messages`)) }
  if (batch.some((m) => isObject(m) && m.method === 'initialize'))
    return { status: 400, body: JSON.stringify(rpcError(null, -32600, 'Invalid Request: initialize is sent alone, not in a batch')) }
  const limit = batchCostLimit()
  let cost = 0
  let bytes = 0
  const answers: string[] = []
  for (const [i, message] of batch.entries()) {
    if (gone()) return { status: 499 }
    const id = idOf(message)
    const price = costOf(tools, message)
    // The first message always runs: alone it could not cost more than one REST request.
    if (i > 0 && cost + price > limit) {
      if (id !== undefined)
        answers.push(
          JSON.stringify(
            rpcError(
              id,
              OVER_BUDGET,
              `Not run: the batch's calls cost more than one request may (${limit}: a row answered 1, once more per relation expanded; this call ${price}, the batch ${cost} before it). Send it in another request.`,
            ),
          ),
        )
      continue
    }
    cost += price
    const answer = await answerOne(message)
    if (i === 0 && answer.status >= 400) return { status: answer.status, body: answer.text }
    if (answer.text !== undefined) {
      if (i > 0 && bytes + answer.text.length > MAX_BATCH_ANSWER_BYTES) {
        // Past the answer's size: this call's answer is dropped, and what follows is not run.
        cost = limit
        if (id !== undefined)
          answers.push(
            JSON.stringify(
              rpcError(id, OVER_BUDGET, `Answer dropped: the batch's answer would pass ${MAX_BATCH_ANSWER_BYTES} bytes. Send it in another request.`),
            ),
          )
      } else {
        bytes += answer.text.length
        answers.push(answer.text)
      }
    }
    await nextTurn() // other requests are served between the messages
  }
  return answers.length ? { status: 200, body: `[${answers.join(',')}]` } : { status: 202 }
}

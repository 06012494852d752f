// The MCP tool of the agent-kickoffs family: handing a card to an agent.
import { type Tool, fieldsFrom, write } from '../../mcp/tools.js'
import { CreateKickoffBody } from './schema.js'

export const KICKOFF_TOOLS: readonly Tool[] = [
  {
    name: 'kickoff_agent',
    title: 'Kick off an agent',
    description:
      "Hands a card to an AI agent that is a member of the card's board, or to an agent workflow (default: the board's default workflow). Delivered at once when the agent can be reached, otherwise queued with retries. `powers` narrows delivery to auto_start (the agent's runner at its wake URL), local_access (its owner's desktop app) or service_ai (a workspace AI turn); `model` and `effort` are hints for a desktop agent.",
    input: fieldsFrom(CreateKickoffBody),
    annotations: write({ destructive: false, idempotent: false, openWorld: true }),
    run: (call, body) => call('createAgentKickoff', { body }),
  },
]

// The MCP tool of the users family: who the token belongs to.
import { z } from 'zod'
import { type Tool, READ } from '../../mcp/tools.js'

export const USER_TOOLS: readonly Tool[] = [
  {
    name: 'whoami',
    title: 'Who am I',
    description: 'The user this token belongs to (id, name, email, role, kind). Use it to learn your own user id.',
    input: z.strictObject({}),
    annotations: READ,
    run: (call) => call('getMe', {}),
  },
]

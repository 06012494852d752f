// The MCP tools of the dependencies family: making a card wait for another, removing that, and a card's dependencies.
import { z } from 'zod'
import { type Tool, fieldsFrom, pageArgs, recordId, asQuery, READ, write } from '../../mcp/tools.js'
import { CreateDependencyBody } from './schema.js'

export const DEPENDENCY_TOOLS: readonly Tool[] = [
  {
    name: 'add_dependency',
    title: 'Add a dependency',
    description:
      'Makes the card `blocked` wait for the card `blocker` (record ids; they may be on different boards). Refused when it would close a cycle (the message names the cycle by keys) or when the pair exists already.',
    input: fieldsFrom(CreateDependencyBody),
    annotations: write({ destructive: false, idempotent: false }),
    run: (call, body) => call('createDependency', { body }),
  },
  {
    name: 'remove_dependency',
    title: 'Remove a dependency',
    description: 'Removes a dependency by its record id (list_dependencies shows them).',
    input: z.strictObject({ id: recordId('dependency') }),
    annotations: write({ destructive: true, idempotent: true }),
    run: async (call, { id }) => {
      await call('deleteDependency', { params: { id } })
      return { deleted: id }
    },
  },
  {
    name: 'list_dependencies',
    title: "List a card's dependencies",
    description:
      'The dependencies of a card in both directions, as a page: each { id, blocker, blocked }, with expand: { blocker, blocked } as { id, key, title, completed }. The card blocks `blocked` where it is `blocker`, and waits where it is `blocked`.',
    input: z.strictObject({ card: recordId('card'), ...pageArgs }),
    annotations: READ,
    run: (call, args) => call('listDependencies', { query: asQuery({ ...args, expand: 'cards' }) }),
  },
]

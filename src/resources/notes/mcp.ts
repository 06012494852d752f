// The MCP tool of the notes family: creating a note.
import { type Tool, fieldsFrom, write } from '../../mcp/tools.js'
import { CreateNoteBody } from './schema.js'

export const NOTE_TOOLS: readonly Tool[] = [
  {
    name: 'create_note',
    title: 'Create a note',
    description: 'Creates a note (Markdown). On a board (or a card) its members see it; on neither, only you (and owners and admins).',
    input: fieldsFrom(CreateNoteBody),
    annotations: write({ destructive: false, idempotent: false }),
    run: (call, body) => call('createNote', { body }),
  },
]

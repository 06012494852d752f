// The MCP tool of the files family: what is attached to a card (an assistant reads the records; the bytes stay REST's).
import { z } from 'zod'
import { type Tool, asQuery, pageArgs, READ, recordId } from '../../mcp/tools.js'

export const FILE_TOOLS: readonly Tool[] = [
  {
    name: 'list_card_files',
    title: "List a card's files",
    description:
      'The files attached to a card (name, size, content type, sha256), oldest first, as a page { page, perPage, totalItems, totalPages, items }. Their bytes are at GET /v1/files/{id}/content over REST.',
    input: z.strictObject({ card: recordId('card'), ...pageArgs }),
    annotations: READ,
    run: (call, args) => call('listFiles', { query: asQuery(args) }),
  },
]

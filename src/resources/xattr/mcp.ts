// The MCP tools of custom fields: reading a board's fields and setting a card's values.
import { z } from 'zod'
import { type Tool, asQuery, pageArgs, READ, recordId, write } from '../../mcp/tools.js'
import { XattrValuesInput } from './schema.js'

export const XATTR_TOOLS: readonly Tool[] = [
  {
    name: 'list_custom_fields',
    title: 'List custom fields',
    description:
      "The custom fields of a board (or of every board you can see): { id, key, name, type, options, required, rollup, formula }. A card's values are its `xattr` object by key; filter cards with `xattr.<key>` (e.g. `xattr.estimate >= 3`).",
    input: z.strictObject({ board: z.string().min(1).optional().describe('Only the fields of this board (record id).'), ...pageArgs }),
    annotations: READ,
    run: (call, args) => call('listXattrFields', { query: asQuery(args) }),
  },
  {
    name: 'set_card_custom_fields',
    title: "Set a card's custom fields",
    description:
      "Sets custom field values on a card by field key, merged into its others (null clears one). A select takes an option id or name, a multi_select a list of them, a user a board member's id, a date YYYY-MM-DD. Rollup and formula fields are computed and cannot be set.",
    input: z.strictObject({ id: recordId('card'), xattr: XattrValuesInput }),
    annotations: write({ destructive: true, idempotent: true }),
    run: (call, { id, xattr }) => call('updateCard', { params: { id }, body: { xattr } }),
  },
]

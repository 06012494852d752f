// Tokens in API shape: never the hash, only the prefix.
import type { TokensTable } from '../../db/types.js'
import type { UserRef } from '../../http/schemas.js'
import type { TokenView } from './schema.js'

export const tokenView = (t: TokensTable, owner: UserRef): TokenView => ({
  id: t.id,
  name: t.name,
  permission: t.permission,
  prefix: t.prefix,
  expires_at: t.expires_at,
  last_used_at: t.last_used_at,
  created: t.created_at,
  created_at: t.created_at,
  owner,
})

// Sessions in API shape: never the hash of the cookie value, nothing of the value itself.
import type { SessionsTable } from '../../db/types.js'
import type { SessionView } from './schema.js'

export const sessionView = (s: SessionsTable, user: { id: string; name: string }, current: string | undefined): SessionView => ({
  id: s.id,
  user: { id: user.id, name: user.name },
  via: s.via,
  created: s.created_at,
  last_used: s.last_used_at,
  expires: s.expires_at,
  user_agent: s.user_agent,
  address: s.address,
  current: s.id === current,
})

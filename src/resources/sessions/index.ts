// The sessions family: /v1/sessions (signing in from a browser), the session cookie the API accepts beside Bearer
// tokens (authenticate.ts), passwords (set through PATCH /v1/users/me and `taskd user set-password`) and login links
// (`taskd user login-link`).
import type { ResourceModule } from '../module.js'
import { SESSION_FILTER } from './query.js'
import { sessionRoutes } from './routes.js'

export const sessions: ResourceModule = {
  name: 'sessions',
  routes: sessionRoutes,
  filters: { sessions: SESSION_FILTER },
  notExported: {
    sessions: 'Sessions are credentials: an imported workspace signs in again.',
    user_passwords: 'Password hashes are credentials: people set their passwords again after an import.',
    login_links: 'Login links are single-use credentials that expire within minutes.',
  },
}

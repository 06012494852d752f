// The tokens family: /v1/tokens, and the bearer authentication every other route uses.
import type { ResourceModule } from '../module.js'
import { TOKEN_FILTER } from './query.js'
import { tokenRoutes } from './routes.js'

export const tokens: ResourceModule = {
  name: 'tokens',
  routes: tokenRoutes,
  filters: { tokens: TOKEN_FILTER },
  notExported: { tokens: 'Token hashes are credentials: an imported workspace issues new tokens.' },
}

// The signing secrets family: /v1/signing-secrets.
import type { ResourceModule } from '../module.js'
import { SIGNING_SECRET_FILTER } from './query.js'
import { signingSecretRoutes } from './routes.js'

export const signingSecrets: ResourceModule = {
  name: 'signing-secrets',
  routes: signingSecretRoutes,
  filters: { signing_secrets: SIGNING_SECRET_FILTER },
  notExported: { signing_secrets: 'Signing secrets are credentials.' },
}

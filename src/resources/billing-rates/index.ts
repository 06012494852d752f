// The billing rates family: /v1/user-billing-rates.
import type { ResourceModule } from '../module.js'
import { BILLING_RATE_FILTER } from './query.js'
import { billingRateRoutes } from './routes.js'

export const billingRates: ResourceModule = {
  name: 'billing-rates',
  routes: billingRateRoutes,
  filters: { user_billing_rates: BILLING_RATE_FILTER },
  exports: [{ table: 'user_billing_rates' }],
}

// Billing rates: filter fields and sort.
import { field, type FilterResource } from '../../filter/index.js'
import type { ListSpec } from '../../query/list-page.js'

export const BILLING_RATE_FILTER: FilterResource = {
  table: 'user_billing_rates',
  fields: {
    id: field.id('id'),
    user: field.id('user_id', 'users'),
    hourly_rate: field.number('hourly_rate'),
    currency: field.text('currency'),
    starts_on: field.date('starts_on', true),
    created: field.date('created_at'),
    updated: field.date('updated_at'),
  },
}

export const BILLING_RATE_LIST: ListSpec = {
  resource: 'user_billing_rates',
  table: 'user_billing_rates',
  defaultSort: '-starts_on',
  expand: [],
  sort: {
    starts_on: 'user_billing_rates.starts_on',
    hourly_rate: 'user_billing_rates.hourly_rate',
    created: 'user_billing_rates.created_at',
    updated: 'user_billing_rates.updated_at',
  },
}

// The one error the filter language throws; the HTTP layer answers it as 400 invalid_filter.
export class FilterError extends Error {
  readonly code = 'invalid_filter'
}

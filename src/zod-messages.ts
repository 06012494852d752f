// How a zod issue reads in an error: one sentence naming the field ("title is required.", "color must be one of "red",
// "blue".", "name must be at most 200 characters."), for the API's details, the CLI and the configuration alike.
import type { z } from 'zod'

type Issue = z.core.$ZodIssue

const ARTICLE: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  bigint: 'a whole number',
  boolean: 'true or false',
  array: 'a list',
  object: 'an object',
  date: 'a date',
  null: 'null',
}

const FORMAT: Record<string, string> = {
  email: 'an email address',
  url: 'a URL',
  uuid: 'a UUID',
  date: 'a date YYYY-MM-DD',
  datetime: 'an ISO 8601 date-time (2026-12-31T23:59:59Z)',
  time: 'a time HH:MM[:SS]',
  duration: 'an ISO 8601 duration',
  ipv4: 'an IPv4 address',
  ipv6: 'an IPv6 address',
  base64: 'base64 text',
}

/** What a value is, for "must be X, not Y". */
function kindOf(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'a list'
  if (typeof value === 'number' && Number.isNaN(value)) return 'not a number'
  if (typeof value === 'string') return value.length > 40 ? 'a string' : `"${value}"`
  return ARTICLE[typeof value] ?? typeof value
}

/** zod's own English messages, which this module replaces; a schema's own message is kept as its author wrote it. */
const DEFAULT_MESSAGE = /^(Invalid|Too (big|small)|Unrecognized)/

/** What one issue asks for, as a noun phrase ("a string", "a date YYYY-MM-DD"), when it can say. */
function expectation(issue: Issue): string | undefined {
  switch (issue.code) {
    case 'invalid_type':
      return ARTICLE[issue.expected] ?? issue.expected
    case 'invalid_format':
      return FORMAT[issue.format]
    case 'invalid_value':
      return issue.values.length === 1 ? JSON.stringify(issue.values[0]) : `one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`
    default:
      return undefined
  }
}

const units = (origin: string, n: number | bigint) =>
  origin === 'string' ? `${n} character${n === 1 ? '' : 's'}` : origin === 'array' || origin === 'set' ? `${n} item${n === 1 ? '' : 's'}` : `${n}`

/** The sentence for one issue about `name` (a field path, a flag, a setting); `input` is the value it was about, when known. */
export function issueMessage(issue: Issue, name: string, input: unknown = (issue as { input?: unknown }).input): string {
  if (!DEFAULT_MESSAGE.test(issue.message)) return issue.message
  return sentence(issue, name, input).trim()
}

/** With an empty name, the sentence's predicate alone ("must be a number, not "abc"."), for "setting: reason" lines. */
function sentence(issue: Issue, name: string, input: unknown): string {
  const missing = input === undefined && (issue.code === 'invalid_type' || issue.code === 'invalid_value' || issue.code === 'invalid_union')
  if (missing) return `${name} is required.`
  switch (issue.code) {
    case 'invalid_type':
    case 'invalid_value':
    case 'invalid_format': {
      const wanted = expectation(issue)
      if (!wanted) break
      return issue.code === 'invalid_format' || input === undefined ? `${name} must be ${wanted}.` : `${name} must be ${wanted}, not ${kindOf(input)}.`
    }
    case 'invalid_union': {
      const wanted = issue.errors.map((branch) => (branch.length && branch[0].path.length === 0 ? expectation(branch[0]) : undefined))
      if (wanted.length && wanted.every(Boolean)) return `${name} must be ${[...new Set(wanted)].join(' or ')}.`
      break
    }
    case 'too_big': {
      if (issue.origin === 'date') return `${name} must be no later than ${String(issue.maximum)}.`
      const limit = units(issue.origin, issue.maximum as number)
      return issue.inclusive === false ? `${name} must be less than ${limit}.` : `${name} must be at most ${limit}.`
    }
    case 'too_small': {
      if (issue.origin === 'date') return `${name} must be no earlier than ${String(issue.minimum)}.`
      if ((issue.origin === 'string' || issue.origin === 'array') && Number(issue.minimum) === 1) return `${name} must not be empty.`
      const limit = units(issue.origin, issue.minimum as number)
      return issue.inclusive === false ? `${name} must be more than ${limit}.` : `${name} must be at least ${limit}.`
    }
    case 'not_multiple_of':
      return `${name} must be a multiple of ${String(issue.divisor)}.`
    default:
      break
  }
  return `${name} is not valid.`
}

/**
 * A whole number with thousands separators, as `n.toLocaleString('en')` writes it ("20,000"), without loading the
 * ICU locale data: that costs some 25 ms of CPU on first use, which every start paid for the sessions family's
 * schemas.
 */
export const thousands = (n: number): string => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',')

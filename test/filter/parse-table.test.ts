// Parser table: valid filters → exact AST; invalid filters → exact error position and message.
import assert from 'node:assert/strict'
import { suite, test } from 'node:test'
import { FilterError } from '../../src/filter/error.js'
import { toHttpError } from '../../src/http/error-handler.js'
import { filterExpression, parseFilter, type CompareOp, type FilterNode, type FilterValue } from '../../src/filter/index.js'
import '../../src/resources/index.js' // registers the families' filter field maps

const c = (field: string, op: CompareOp, value: FilterValue): FilterNode => ({ kind: 'compare', field, op, value })
const and = (...items: FilterNode[]): FilterNode => ({ kind: 'and', items })
const or = (...items: FilterNode[]): FilterNode => ({ kind: 'or', items })
const not = (item: FilterNode): FilterNode => ({ kind: 'not', item })
const a = c('a', '=', 1),
  b = c('b', '=', 2),
  d = c('c', '=', 3)

const VALID: [string, FilterNode | null][] = [
  ['title = "x"', c('title', '=', 'x')],
  ['title="x"', c('title', '=', 'x')],
  ['   title   =   "x"   ', c('title', '=', 'x')],
  ['title\n=\t"x"\r\n', c('title', '=', 'x')],
  ['priority != 3', c('priority', '!=', 3)],
  ['priority > 2', c('priority', '>', 2)],
  ['priority >= 2', c('priority', '>=', 2)],
  ['priority < 2', c('priority', '<', 2)],
  ['priority <= 2', c('priority', '<=', 2)],
  ['title ~ "bug"', c('title', '~', 'bug')],
  ['title !~ "bug"', c('title', '!~', 'bug')],
  ['title!~"bug"', c('title', '!~', 'bug')],
  ['completed = true', c('completed', '=', true)],
  ['archived = false', c('archived', '=', false)],
  ['due_date = null', c('due_date', '=', null)],
  ['due_date != null', c('due_date', '!=', null)],
  ['position = -1.5', c('position', '=', -1.5)],
  ['position = 0.25', c('position', '=', 0.25)],
  ['position = -0', c('position', '=', 0)],
  ['priority = 007', c('priority', '=', 7)],
  // eslint-disable-next-line no-loss-of-precision -- a literal past 2^53 on purpose: the parser must read it as JavaScript does
  ['position = 12345678901234567890', c('position', '=', 12345678901234567890)],
  ['title = ""', c('title', '=', '')],
  ['title = "a \\"quoted\\" word"', c('title', '=', 'a "quoted" word')],
  ['title = "back\\\\slash"', c('title', '=', 'back\\slash')],
  ['title = "\\\\\\""', c('title', '=', '\\"')],
  ['title = "50% off_now"', c('title', '=', '50% off_now')],
  ['title = "ünï😀"', c('title', '=', 'ünï😀')],
  ['title = "&& || ( ) ! \' ~"', c('title', '=', "&& || ( ) ! ' ~")],
  ['title = "line\nbreak"', c('title', '=', 'line\nbreak')],
  ['board.name ~ "x"', c('board.name', '~', 'x')],
  ['a.b.c.d.e = 1', c('a.b.c.d.e', '=', 1)],
  ['x_1.y_2 = 1', c('x_1.y_2', '=', 1)],
  ['_a = 1', c('_a', '=', 1)],
  ['nullable = null', c('nullable', '=', null)],
  ['a = 1 && b = 2', and(a, b)],
  ['a = 1 || b = 2', or(a, b)],
  ['a = 1 && b = 2 || c = 3', or(and(a, b), d)],
  ['a = 1 || b = 2 && c = 3', or(a, and(b, d))],
  ['(a = 1 || b = 2) && c = 3', and(or(a, b), d)],
  ['a = 1 && b = 2 && c = 3', and(a, b, d)],
  ['(a = 1 && b = 2) && c = 3', and(and(a, b), d)],
  ['a = 1 || (b = 2 || c = 3)', or(a, or(b, d))],
  ['!a = 1', not(a)],
  ['! a = 1', not(a)],
  ['!!a = 1', not(not(a))],
  ['!(a = 1 || b = 2)', not(or(a, b))],
  ['!a = 1 && b = 2', and(not(a), b)],
  ['a != 1', c('a', '!=', 1)],
  ['((a = 1))', a],
  ['a=1&&b=2||!(c=3)', or(and(a, b), not(d))],
  ['', null],
  [' \t\r\n ', null],
]

suite('valid filters parse to the expected tree', () => {
  for (const [input, ast] of VALID) test(JSON.stringify(input), () => assert.deepEqual(parseFilter(input), ast))
})

test('limits are inclusive: 200 comparisons, depth 32, 3,500 characters', () => {
  const many = parseFilter(Array(200).fill('a = 1').join(' && '))
  assert.equal(many?.kind === 'and' && many.items.length, 200)
  assert.deepEqual(parseFilter(`${'('.repeat(32)}a = 1${')'.repeat(32)}`), a)
  assert.deepEqual(parseFilter(`${'!'.repeat(31)}(a = 1)`)?.kind, 'not')
  const long = `title = "${'x'.repeat(3500 - 10)}"`
  assert.equal(long.length, 3500)
  assert.equal(parseFilter(long)?.kind, 'compare')
})

const CARD_FIELDS =
  'id, key, title, description, board, list, position, priority, start_date, due_date, completed, archived, ' +
  'trashed, completed_at, created, updated, created_by, state, assignees, members, watchers, tags, files, parent, blocked, ' +
  'status, milestone, team, xattr'
const BOARD_FIELDS = 'id, name, description, key_prefix, created, updated, created_by, members, folder'

/** [filter on cards, exact error message]. */
const INVALID: [string, string][] = [
  ['title =', 'at 8: expected a value after "=", found end of filter'],
  ["title = 'x'", 'at 9: single quotes are not allowed; write strings in double quotes'],
  ['title = "abc', 'at 9: unterminated string'],
  ['title = "abc\\"', 'at 9: unterminated string'],
  ['title = "a\\', 'at 9: unterminated string'],
  ['title = "a\\nb"', 'at 11: invalid escape "\\n" in a string; only \\" and \\\\ are allowed'],
  ['title = "\\\'"', 'at 10: invalid escape "\\\'" in a string; only \\" and \\\\ are allowed'],
  ['title = "\\\n"', 'at 10: invalid escape "\\" followed by U+000A in a string; only \\" and \\\\ are allowed'],
  ['(title = "x"', 'at 13: expected ")" to close the "(" at 1, found end of filter'],
  ['((title = "x")', 'at 15: expected ")" to close the "(" at 1, found end of filter'],
  ['(title = "x" priority = 1)', 'at 14: expected ")" to close the "(" at 1, found "priority"'],
  ['title = "x")', 'at 12: unexpected ")" without a matching "("'],
  ['title = "x") (', 'at 12: unexpected ")" without a matching "("'],
  ['()', 'at 2: empty group "()"'],
  ['title = "x" && ()', 'at 17: empty group "()"'],
  ['!()', 'at 3: empty group "()"'],
  ['title = "x" priority = 1', 'at 13: expected "&&", "||" or end of filter, found "priority"'],
  ['title = "x" "y"', 'at 13: expected "&&", "||" or end of filter, found a string'],
  ['title = "x" &&', 'at 15: expected a condition after "&&", found end of filter'],
  ['title = "x" || && priority = 1', 'at 16: expected a condition after "||", found "&&"'],
  ['title ~ "x" && (priority = 1 || )', 'at 33: expected a condition after "||", found ")"'],
  ['|| title = "x"', 'at 1: expected a condition, found "||"'],
  ['"x"', 'at 1: expected a condition, found a string'],
  ['!', 'at 2: expected a condition after "!", found end of filter'],
  ['true = 1', 'at 1: expected a field name, found "true"'],
  ['title = "x" & priority = 1', 'at 13: unexpected character "&" (use "&&")'],
  ['title = "x" | priority = 1', 'at 13: unexpected character "|" (use "||")'],
  ['title = "x" #', 'at 13: unexpected character "#"'],
  ['title = "x" 😀', 'at 13: unexpected character "😀"'],
  ['title "x"', 'at 7: expected an operator after "title", found a string'],
  ['title', 'at 6: expected an operator after "title", found end of filter'],
  ['title == "x"', 'at 8: expected a value after "=", found "="'],
  ['title = x', 'at 9: expected a value after "=", found "x" (strings must be in double quotes)'],
  ['completed = TRUE', 'at 13: expected a value after "=", found "TRUE" (strings must be in double quotes)'],
  ['title = (', 'at 9: expected a value after "=", found "("'],
  ['priority = -x', 'at 12: expected a digit after "-"'],
  ['position = 1.', 'at 14: expected a digit after "."'],
  ['position = .5', 'at 12: unexpected character "."'],
  [`position = 1${'0'.repeat(400)}`, 'at 12: number out of range'],
  ['board. = "x"', 'at 7: expected a field name after "."'],
  ['board..name = "x"', 'at 7: expected a field name after "."'],
  ['a.b.c.d.e.f = 1', 'at 1: field "a.b.c.d.e.f" has more than 4 relation hops'],
  ['foo = 1', `at 1: unknown field "foo"; fields of cards: ${CARD_FIELDS}`],
  ['title = "x" || Title = "x"', `at 16: unknown field "Title"; fields of cards: ${CARD_FIELDS}`],
  ['constructor = "x"', `at 1: unknown field "constructor"; fields of cards: ${CARD_FIELDS}`],
  ['__proto__ = "x"', `at 1: unknown field "__proto__"; fields of cards: ${CARD_FIELDS}`],
  ['board.nope ~ "x"', `at 1: unknown field "board.nope"; fields of boards: ${BOARD_FIELDS}`],
  ['title.x = "a"', 'at 1: unknown field "title.x"; "title" has no fields'],
  ['priority > "high"', 'at 12: "priority" takes a number, found a string'],
  ['completed = 1', 'at 13: "completed" takes true or false, found number 1'],
  ['title = 5', 'at 9: "title" takes a string in double quotes, found number 5'],
  ['board = true', 'at 9: "board" takes a string in double quotes, found true'],
  ['title > "a"', 'at 7: operator ">" does not apply to "title"; use "=", "!=", "~", "!~"'],
  ['completed ~ "a"', 'at 11: operator "~" does not apply to "completed"; use "=", "!="'],
  ['tags = "x"', 'at 6: operator "=" does not apply to "tags"; use "~", "!~"'],
  ['priority > null', 'at 12: null goes only with "=" or "!="'],
  ['tags.name = null', 'at 13: "tags.name" goes through a multi-value field and cannot be compared with null'],
  ['state = "doing"', 'at 9: "state" must be one of "backlog", "unstarted", "started", "completed", "canceled"'],
  ['state = "Started"', 'at 9: "state" must be one of "backlog", "unstarted", "started", "completed", "canceled"'],
  ['due_date = "2026-13-01"', 'at 12: "due_date" takes a date as "YYYY-MM-DD" or an ISO 8601 date-time such as "2026-05-01T12:00:00Z"'],
  ['due_date = "2026-02-29"', 'at 12: "due_date" takes a date as "YYYY-MM-DD" or an ISO 8601 date-time such as "2026-05-01T12:00:00Z"'],
  ['created < "05/01/2026"', 'at 11: "created" takes a date as "YYYY-MM-DD" or an ISO 8601 date-time such as "2026-05-01T12:00:00Z"'],
  ['created < "2026-05-01T25:00:00Z"', 'at 11: "created" takes a date as "YYYY-MM-DD" or an ISO 8601 date-time such as "2026-05-01T12:00:00Z"'],
  ['due_date > 20260501', 'at 12: "due_date" takes a string in double quotes, found number 20260501'],
]

suite('invalid filters fail with HttpError 400 invalid_filter at the exact position', () => {
  for (const [input, message] of INVALID)
    test(JSON.stringify(input.slice(0, 60)), () => {
      let error: unknown
      try {
        filterExpression('cards', input)
      } catch (e) {
        error = e
      }
      assert.ok(error instanceof FilterError, `${input}: expected a FilterError, got ${String(error)}`)
      assert.equal(toHttpError(error).status, 400, input)
      assert.equal(error.code, 'invalid_filter', input)
      assert.equal(error.message, message, input)
    })
})

test('limits: past 3,500 characters, 200 comparisons, depth 32 or 4 hops → invalid_filter', () => {
  const fails = (input: string, message: string) =>
    assert.throws(
      () => parseFilter(input),
      (e: unknown) => e instanceof FilterError && toHttpError(e).status === 400 && e.code === 'invalid_filter' && e.message === message,
      message,
    )
  fails(`title = "${'x'.repeat(3491)}"`, 'at 3501: filter is longer than 3500 characters')
  fails(' '.repeat(3501), 'at 3501: filter is longer than 3500 characters')
  fails(Array(201).fill('a = 1').join(' && '), `at ${200 * 9 + 1}: more than 200 comparisons`)
  fails(`${'('.repeat(33)}a = 1${')'.repeat(33)}`, 'at 33: nesting deeper than 32 levels')
  fails(`${'!'.repeat(33)}a = 1`, 'at 33: nesting deeper than 32 levels')
  fails(`${'('.repeat(16)}${'!'.repeat(17)}a = 1${')'.repeat(16)}`, 'at 33: nesting deeper than 32 levels')
})

test('an unknown resource is a programming error, not a filter error', () => {
  assert.throws(
    () => filterExpression('nope', 'a = 1'),
    (e: unknown) => e instanceof Error && !(e instanceof FilterError),
  )
})

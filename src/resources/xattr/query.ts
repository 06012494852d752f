// Custom fields: the field list's filter, sort and expand; and `xattr.<key>` in the card list's filter and sort, served by
// the value indexes (card_xattr(field_id, num, card_id) and (field_id, str, card_id)).
import { sql, type Expression, type SqlBool } from 'kysely'
import type { Db } from '../../db/database.js'
import { field, SQL_OP, type CompareOp, type FilterResource, type FilterValue, type KeyedField } from '../../filter/index.js'
import type { KeyedOrder, KeyedSortSpec, ListSpec } from '../../query/list-page.js'
import { KEY_PATTERN, XATTR_TYPES } from './schema.js'
import { fieldsByKeyQuery } from './store.js'

export const XATTR_FIELD_FILTER: FilterResource = {
  table: 'xattr_fields',
  fields: {
    id: field.id('id'),
    board: field.id('board_id', 'boards'),
    name: field.text('name'),
    key: field.text('key'),
    type: field.oneOf('type', XATTR_TYPES),
    position: field.number('position'),
    created: field.date('created_at'),
    updated: field.date('updated_at'),
  },
}

export const XATTR_FIELD_LIST: ListSpec = {
  resource: 'xattr_fields',
  table: 'xattr_fields',
  defaultSort: 'position',
  expand: ['board'],
  sort: {
    position: 'xattr_fields.position',
    name: 'xattr_fields.name',
    key: 'xattr_fields.key',
    created: 'xattr_fields.created_at',
    updated: 'xattr_fields.updated_at',
  },
}

/** The types whose values a comparison with a literal of this kind reads, and the column it compares. */
const NUMBER_TYPES = ['number']
const BOOLEAN_TYPES = ['boolean']
const TEXT_TYPES = ['text', 'url']
const OPTION_TYPES = ['select', 'multi_select']
const STRING_TYPES = ['text', 'url', 'date', 'user', 'select', 'multi_select']
const STORED_TYPES = [...STRING_TYPES, 'number', 'boolean']

const fold = (text: string) => sql.raw(/^[\x00-\x7f]*$/.test(text) ? 'lower' : 'taskd_fold')
const list = (types: readonly string[]) => sql.join(types.map((t) => sql.lit(t)))

/** The cards whose value of a field named `key` (of the given types, on `board` when known) passes `cond` on row `x`. */
function hasValue(c: Parameters<KeyedField['compile']>[0], types: readonly string[], cond: Expression<SqlBool>): Expression<SqlBool> {
  const fields = sql`select f.id from xattr_fields as f where f.key = ${c.key} and f.type in (${list(types)})${c.board === undefined ? sql`` : sql` and f.board_id = ${c.board}`}`
  const row = sql.raw(c.rowId)
  // As with tags: on its own an IN (subquery), so the value index finds the cards; beside an anchoring equality a probe per row.
  if (!c.anchored) return sql<SqlBool>`${row} in (select x.card_id from card_xattr as x where x.field_id in (${fields}) and ${cond})`
  return sql<SqlBool>`exists (select 1 from card_xattr as x where x.card_id = ${row} and x.field_id in (${fields}) and ${cond})`
}

/** `xattr.<key> op value`: the literal's kind picks the fields' types (a number compares number fields, and so on). */
function compileXattr(c: Parameters<KeyedField['compile']>[0]): Expression<SqlBool> {
  const { op, value } = c
  if (value === null) {
    const any = hasValue(c, STORED_TYPES, sql<SqlBool>`1 = 1`)
    return op === '=' ? sql<SqlBool>`not ${any}` : any
  }
  // "!=" and "!~" mean "no such value": a card without one matches them.
  const negative = op === '!=' || op === '!~'
  const positive: CompareOp = op === '!=' ? '=' : op === '!~' ? '~' : op
  let test: Expression<SqlBool>
  if (typeof value === 'number') test = hasValue(c, NUMBER_TYPES, sql<SqlBool>`x.num ${SQL_OP[positive as '=']!} ${value}`)
  else if (typeof value === 'boolean') test = hasValue(c, BOOLEAN_TYPES, sql<SqlBool>`x.num = ${value ? 1 : 0}`)
  else if (positive === '~') {
    const pattern = value.replace(/[\\%_]/g, (ch) => `\\${ch}`)
    const f = fold(pattern)
    const text = hasValue(c, TEXT_TYPES, sql<SqlBool>`${f}(x.str) like '%' || ${f}(${pattern}) || '%' escape '\\'`)
    const option = hasValue(c, [...OPTION_TYPES, 'user'], byOption(value))
    test = sql<SqlBool>`(${text} or ${option})`
  } else if (positive === '=') test = hasValue(c, STRING_TYPES, byOption(value))
  else test = hasValue(c, ['text', 'url', 'date'], sql<SqlBool>`x.str ${SQL_OP[positive as '>']!} ${value}`)
  return negative ? sql<SqlBool>`not ${test}` : test
}

/** The value is this id, or (select fields) the option of this name, case-insensitively. */
const byOption = (value: string) =>
  sql<SqlBool>`(x.str = ${value} or x.str in (select o.id from xattr_options as o where o.field_id = x.field_id and ${fold(value)}(o.name) = ${fold(value)}(${value})))`

function checkXattr(op: CompareOp, value: FilterValue): string | undefined {
  if (value === null) return op === '=' || op === '!=' ? undefined : 'compares with null only by "=" or "!="'
  if (typeof value === 'boolean') return op === '=' || op === '!=' ? undefined : 'compares true or false only by "=" or "!="'
  if (typeof value === 'number') return op === '~' || op === '!~' ? 'takes "~" only with a string' : undefined
  return undefined
}

/** `xattr.<key>` in a card filter: a card's custom field value by the field's key. */
export const XATTR_FILTER_FIELD: KeyedField = { type: 'keyed', keyPattern: KEY_PATTERN, check: checkXattr, compile: compileXattr }

/** The column a sort by a field of these types reads; undefined when it cannot sort. */
const sortColumn = (type: string): 'num' | 'str' | undefined =>
  NUMBER_TYPES.includes(type) || BOOLEAN_TYPES.includes(type) ? 'num' : ['text', 'url', 'date', 'user', 'select'].includes(type) ? 'str' : undefined

/**
 * `sort=xattr.<key>` on cards: the cards with a value, read from the value index in its order (ties by card id), then
 * those without one. A select sorts by option id (the order the options were made in), a user by id. Multi_select,
 * rollup and formula fields cannot sort (400), nor a key whose fields differ in kind across the boards listed.
 */
export const XATTR_SORT: KeyedSortSpec = {
  prefix: 'xattr.',
  async resolve(db: Db, key: string, scope: { board?: string }): Promise<KeyedOrder | string> {
    if (!KEY_PATTERN.test(key)) return `Unknown sort field "xattr.${key.slice(0, 80)}": a custom field key is a slug.`
    const fields = await db.read(fieldsByKeyQuery(db.q, key, scope.board))
    if (fields.length === 0) return `Unknown sort field "xattr.${key}": no board${scope.board ? ' listed' : ''} has a custom field with this key.`
    const columns = new Set(fields.map((f) => sortColumn(f.type)))
    if (columns.has(undefined)) return `Cannot sort by "xattr.${key}": multi_select, rollup and formula fields do not sort.`
    if (columns.size > 1) return `Cannot sort by "xattr.${key}": its fields differ in type across boards; list one board.`
    const column = [...columns][0]!
    const ids = fields.map((f) => f.id)
    return {
      column: `xs.${column}`,
      tie: 'xs.card_id',
      valued: (base) => base.innerJoin('card_xattr as xs', 'xs.card_id', 'cards.id').where('xs.field_id', 'in', ids).where(`xs.${column}`, 'is not', null),
      unvalued: (base) =>
        base.where(({ not, exists, selectFrom }) =>
          not(exists(selectFrom('card_xattr as xn').select('xn.card_id').whereRef('xn.card_id', '=', 'cards.id').where('xn.field_id', 'in', ids))),
        ),
    }
  },
}

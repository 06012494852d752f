// Field maps: which filter fields each resource has, their SQL columns and types, and how dots cross relations.
// The maps themselves live with their families (src/resources/<family>/query.ts); this holds the registry.
import type { Expression, SqlBool } from 'kysely'
import type { CompareOp, FilterValue } from './ast.js'
import { FILTER_LIMITS } from './parser.js'

export type ScalarType = 'text' | 'number' | 'boolean' | 'date' | 'id' | 'enum'

/** A column of the resource's table. */
export interface ScalarField {
  type: ScalarType
  column: string
  /** Operators allowed; defaults per type (see DEFAULT_OPS). */
  ops?: readonly CompareOp[]
  /** Allowed values of an `enum`. */
  values?: readonly string[]
  /** A `date` column that may hold a bare `YYYY-MM-DD` as well as a full ISO string (due_date, start_date). */
  mixed?: boolean
  /** A `number` column that holds whole numbers. */
  integer?: boolean
  /** A `text` column whose `=` and `!=` ignore ASCII case (users.email). */
  nocase?: boolean
  /**
   * A key `<PREFIX>-<n>` that also matches under the row's earlier prefixes: the table `prefixes` (columns `prefix`,
   * `owner` and `last`) holds every prefix ever used with its owner's id and the last number the owner gave before leaving
   * it (null: unknown, or the owner's prefix now), and the row holds that owner (`owner`) and its number (`num`).
   */
  keyHistory?: { prefixes: string; owner: string; num: string; last: string }
  /** An `id` column that is also a to-one relation: `field.x` reads field x of resource `to` where its id = column. */
  to?: string
  /**
   * A value computed from the row instead of a column (`column` is then unused): SQL text given the row's quoted alias,
   * written by the family's field map (never from filter text; values stay bound parameters). A card's `blocked`.
   */
  expression?: (row: string) => string
}

/** A multi-value field: membership with `~`/`!~` by the target's id; `field.x` reaches the target's fields. */
export interface MultiField {
  type: 'multi'
  /** Resource of the members. */
  target: string
  /** Join table: link.from = this row's id, link.to = the member's id. */
  link?: { table: string; from: string; to: string }
  /** Or: the member table's column that holds this row's id. */
  back?: string
  /** Membership also matches the member's name, case-insensitively (tags). */
  byName?: boolean
  /**
   * The members belong to the row's board (a card's tags): beside `board = "…"` a membership test looks among that
   * board's members, found once, instead of joining every candidate's links to the member table.
   */
  boardScoped?: boolean
  ops?: readonly CompareOp[]
}

/**
 * Named values kept beside the row in a table of their own, whose names the data decides (a card's custom fields:
 * `xattr.<key>`). The family that owns them checks and compiles each comparison; the filter language only parses it.
 */
export interface KeyedField {
  type: 'keyed'
  /** What a comparison may name after the dot (a slug); anything else is an unknown field. */
  keyPattern: RegExp
  /** Why `op value` does not apply to such a field, or undefined when it does. */
  check: (op: CompareOp, value: FilterValue) => string | undefined
  /**
   * The condition on the row `rowId` (its id column as SQL text) for `<field>.<key> op value`. `anchored`: the rows are
   * already narrowed by an indexed equality; `board`: the one board every candidate row is on, when known.
   */
  compile: (c: { key: string; op: CompareOp; value: FilterValue; rowId: string; anchored: boolean; board: string | undefined }) => Expression<SqlBool>
  ops?: readonly CompareOp[]
}

/** Another name for a (possibly dotted) field of the same resource. */
export interface AliasField {
  alias: string
}

export type FieldDef = ScalarField | MultiField | KeyedField | AliasField
export interface FilterResource {
  table: string
  fields: Record<string, FieldDef>
}

export const DEFAULT_OPS: Record<ScalarType | 'multi' | 'keyed', readonly CompareOp[]> = {
  keyed: ['=', '!=', '>', '>=', '<', '<=', '~', '!~'],
  text: ['=', '!=', '~', '!~'],
  number: ['=', '!=', '>', '>=', '<', '<='],
  date: ['=', '!=', '>', '>=', '<', '<='],
  boolean: ['=', '!='],
  id: ['=', '!='],
  enum: ['=', '!='],
  multi: ['~', '!~'],
}

/** Builders for the field maps each resource family declares in its query.ts. */
export const field = {
  /** `nocase`: `=` and `!=` ignore ASCII case (emails). */
  text: (column: string, opts: { nocase?: boolean } = {}): ScalarField => ({ type: 'text', column, ...(opts.nocase ? { nocase: true } : {}) }),
  /** A card key: text, where `=` and `!=` also know the keys the row had under its owner's earlier prefixes. */
  key: (column: string, keyHistory: NonNullable<ScalarField['keyHistory']>): ScalarField => ({ type: 'text', column, keyHistory }),
  /** `integer`: whole numbers only (an INTEGER column: PostgreSQL refuses 1.5 there). */
  number: (column: string, opts: { integer?: boolean } = {}): ScalarField => ({ type: 'number', column, ...(opts.integer ? { integer: true } : {}) }),
  boolean: (column: string): ScalarField => ({ type: 'boolean', column }),
  /** `mixed`: the column may hold a bare `YYYY-MM-DD` as well as a full ISO string (due_date, start_date). */
  date: (column: string, mixed = false): ScalarField => ({ type: 'date', column, mixed }),
  /** `to`: the column is also a to-one relation to that resource. */
  id: (column: string, to?: string): ScalarField => ({ type: 'id', column, to }),
  oneOf: (column: string, values: readonly string[]): ScalarField => ({ type: 'enum', column, values }),
  /** A value computed by an SQL expression over the row (given its quoted alias), compared like a column of that type. */
  computed: (type: 'boolean' | 'number', expression: (row: string) => string): ScalarField => ({ type, column: '', expression }),
  /** Users linked through a join table `table(from, user_id)`. */
  users: (table: string, from: string): MultiField => ({ type: 'multi', target: 'users', link: { table, from, to: 'user_id' } }),
}

const resources = new Map<string, FilterResource>()

/** Adds a resource's field map; src/resources/index.ts registers every family's maps once at start. */
export function registerFilterResource(name: string, resource: FilterResource): void {
  if (resources.has(name) && resources.get(name) !== resource) throw new Error(`filter resource "${name}" is already registered`)
  resources.set(name, resource)
}

export function filterResource(name: string): FilterResource {
  const r = resources.get(name)
  if (!r) throw new Error(`no filter field map for resource "${name}"`)
  return r
}

/** One relation crossed on the way to a field. `one`: target.id = prev.fk; the others reach many rows. */
export type Hop =
  | { kind: 'one'; table: string; fk: string }
  | { kind: 'link'; table: string; link: { table: string; from: string; to: string } }
  | { kind: 'back'; table: string; back: string }

export interface ResolvedField {
  hops: Hop[]
  leaf: ScalarField | MultiField | KeyedField
  /** The name after a keyed field's dot (`estimate` of `xattr.estimate`). */
  key?: string
  /** True when a hop or the leaf reaches many rows: the comparison becomes an EXISTS. */
  many: boolean
}

/** Hop into a multi field's members; also the last step of a membership test. */
export function memberHop(f: MultiField): Hop {
  const table = filterResource(f.target).table
  return f.link ? { kind: 'link', table, link: f.link } : { kind: 'back', table, back: f.back! }
}

/** Walks a dotted path through the field maps; returns an error message (without position) when it does not exist. */
export function resolveField(resourceName: string, path: string): ResolvedField | string {
  let resource = filterResource(resourceName)
  let name = resourceName
  const segments = path.split('.')
  const hops: Hop[] = []
  let aliases = 0
  for (let k = 0; k < segments.length; k++) {
    const def = Object.hasOwn(resource.fields, segments[k]) ? resource.fields[segments[k]] : undefined
    if (!def) return `unknown field "${path}"; fields of ${name}: ${Object.keys(resource.fields).join(', ')}`
    if ('alias' in def) {
      if (++aliases > 8) throw new Error(`filter alias loop at "${path}"`)
      segments.splice(k, 1, ...def.alias.split('.'))
      k--
      continue
    }
    if (def.type === 'keyed') {
      // A keyed field takes exactly one more segment, its key, and only on the resource itself (no relation before it).
      const key = segments[k + 1]
      if (k !== segments.length - 2 || hops.length > 0 || !def.keyPattern.test(key))
        return `unknown field "${path}"; "${segments.slice(0, k + 1).join('.')}" takes one key after the dot, such as "${segments[k]}.estimate"`
      return { hops, leaf: def, key, many: false }
    }
    if (k === segments.length - 1) {
      return { hops, leaf: def, many: def.type === 'multi' || hops.some((h) => h.kind !== 'one') }
    }
    if (def.type === 'multi') {
      hops.push(memberHop(def))
      name = def.target
    } else if (def.to) {
      hops.push({ kind: 'one', table: filterResource(def.to).table, fk: def.column })
      name = def.to
    } else {
      return `unknown field "${path}"; "${segments.slice(0, k + 1).join('.')}" has no fields`
    }
    if (hops.length > FILTER_LIMITS.hops) return `field "${path}" has more than ${FILTER_LIMITS.hops} relation hops`
    resource = filterResource(name)
  }
  throw new Error('unreachable: empty field path')
}

// Field maps: which filter fields each resource has, their SQL columns and types, and how dots cross relations.
import type { CompareOp } from './ast.js'
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
  /** An `id` column that is also a to-one relation: `field.x` reads field x of resource `to` where its id = column. */
  to?: string
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
  ops?: readonly CompareOp[]
}

/** Another name for a (possibly dotted) field of the same resource. */
export interface AliasField { alias: string }

export type FieldDef = ScalarField | MultiField | AliasField
export interface FilterResource { table: string; fields: Record<string, FieldDef> }

export const DEFAULT_OPS: Record<ScalarType | 'multi', readonly CompareOp[]> = {
  text: ['=', '!=', '~', '!~'],
  number: ['=', '!=', '>', '>=', '<', '<='],
  date: ['=', '!=', '>', '>=', '<', '<='],
  boolean: ['=', '!='],
  id: ['=', '!='],
  enum: ['=', '!='],
  multi: ['~', '!~'],
}

const text = (column: string): ScalarField => ({ type: 'text', column })
const num = (column: string): ScalarField => ({ type: 'number', column })
const bool = (column: string): ScalarField => ({ type: 'boolean', column })
const date = (column: string, mixed = false): ScalarField => ({ type: 'date', column, mixed })
const id = (column: string, to?: string): ScalarField => ({ type: 'id', column, to })
const oneOf = (column: string, values: readonly string[]): ScalarField => ({ type: 'enum', column, values })
const users = (table: string, from: string): MultiField => ({ type: 'multi', target: 'users', link: { table, from, to: 'user_id' } })

export const LIST_CATEGORIES = ['backlog', 'unstarted', 'started', 'completed', 'canceled'] as const

const resources = new Map<string, FilterResource>([
  ['cards', { table: 'cards', fields: {
    id: id('id'), key: text('key'), title: text('title'), description: text('description'),
    board: id('board_id', 'boards'), list: id('list_id', 'lists'),
    position: num('position'), priority: num('priority'),
    start_date: date('start_date', true), due_date: date('due_date', true),
    completed: bool('completed'), archived: bool('archived'), trashed: bool('trashed'),
    completed_at: date('completed_at'), created: date('created_at'), updated: date('updated_at'),
    created_by: id('created_by', 'users'),
    state: { alias: 'list.category' },
    assignees: users('card_assignees', 'card_id'),
    members: { alias: 'assignees' },
    watchers: users('card_watchers', 'card_id'),
    tags: { type: 'multi', target: 'tags', link: { table: 'card_tags', from: 'card_id', to: 'tag_id' }, byName: true },
    files: { type: 'multi', target: 'files', back: 'card_id' },
  } }],
  ['boards', { table: 'boards', fields: {
    id: id('id'), name: text('name'), description: text('description'), key_prefix: text('key_prefix'),
    created: date('created_at'), updated: date('updated_at'), created_by: id('created_by', 'users'),
    members: users('board_members', 'board_id'),
  } }],
  ['lists', { table: 'lists', fields: {
    id: id('id'), name: text('name'), board: id('board_id', 'boards'), category: oneOf('category', LIST_CATEGORIES),
    position: num('position'), created: date('created_at'), updated: date('updated_at'),
  } }],
  ['users', { table: 'users', fields: {
    id: id('id'), email: text('email'), name: text('name'),
    role: oneOf('role', ['owner', 'admin', 'member']), kind: oneOf('kind', ['human', 'agent']), created: date('created_at'),
  } }],
  ['tokens', { table: 'tokens', fields: {
    id: id('id'), name: text('name'), permission: oneOf('permission', ['read', 'write', 'full']), prefix: text('prefix'),
    expires_at: date('expires_at'), last_used_at: date('last_used_at'), created: date('created_at'),
    owner: id('user_id', 'users'),
  } }],
  ['tags', { table: 'tags', fields: {
    id: id('id'), name: text('name'), color: text('color'), board: id('board_id', 'boards'),
    created: date('created_at'), updated: date('updated_at'),
  } }],
  // Reached through cards `files`; the BLOB is deliberately not a field.
  ['files', { table: 'files', fields: {
    id: id('id'), name: text('name'), mime: text('mime'), size: num('size'), created: date('created_at'),
  } }],
])

/** Adds the field map of a resource that is not built in (e.g. notes); names must be new. */
export function registerFilterResource(name: string, resource: FilterResource): void {
  if (resources.has(name)) throw new Error(`filter resource "${name}" is already registered`)
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
  leaf: ScalarField | MultiField
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

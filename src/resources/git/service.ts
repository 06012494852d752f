// Git connections (owners and admins only: they hold the hook secrets), repositories (owners and admins manage them;
// members of a repository's board read it) and resources (seen by whoever sees one of their cards or their repository's
// board; owners and admins see all). What hooks bring in is ingest.ts.
import { randomBytes } from 'node:crypto'
import { type Actor, isAdmin } from '../../access/roles.js'
import { seesBoard } from '../../access/visibility.js'
import { isoAt } from '../../clock.js'
import { publicBaseUrl } from '../../config.js'
import type { SecretBox } from '../../crypto.js'
import type { Q } from '../../db/database.js'
import type { GitConnectionsTable, GitRepositoriesTable, GitResourcesTable } from '../../db/types.js'
import type { Deps } from '../../deps.js'
import { conflict, forbidden, invalidField, notFound } from '../../errors.js'
import { newId } from '../../ids.js'
import { listPage, parseExpand, type ListParams } from '../../query/list-page.js'
import { boardViews } from '../boards/present.js'
import { getBoards } from '../boards/published.js'
import { visibleCard } from '../cards/service.js'
import { listsOfBoard } from '../lists/published.js'
import { cardBoardsSeenBy, connectionViews, repositoryView, resourceViews, rulesOf } from './present.js'
import { CONNECTION_LIST, REPOSITORY_LIST, RESOURCE_LIST } from './query.js'
import type {
  CreateGitConnectionInput,
  CreateGitRepositoryInput,
  GitConnectionView,
  GitRepositoryView,
  GitResourceView,
  GitRule,
  UpdateGitConnectionInput,
  UpdateGitRepositoryInput,
} from './schema.js'
import {
  connectionsQuery,
  deleteConnectionRow,
  deleteRepositoryRow,
  getConnection,
  getRepositories,
  getRepository,
  getSealedSecret,
  insertConnection,
  insertRepository,
  putSealedSecret,
  repositoryByName,
  updateConnectionRow,
  updateRepositoryRow,
  visibleRepositoriesQuery,
  visibleResource as visibleResourceRow,
  visibleResourcesQuery,
} from './store.js'

// Connections.

/** The sealed secret is bound to its connection, so a value copied into another row does not open there. */
const context = (id: string) => `git-connection:${id}`
const sealSecret = (box: SecretBox, id: string, value: string) => box.seal(value, context(id))
/** A generated hook secret: 32 random bytes as 64 hex characters (every host takes it as it is). */
const generatedSecret = () => randomBytes(32).toString('hex')

/** A connection's hook secret, or undefined when it has none or it does not open (a workspace imported under another master key). */
export async function openConnectionSecret(deps: Deps, q: Q, id: string): Promise<string | undefined> {
  const sealed = await getSealedSecret(q, id)
  if (!sealed) return undefined
  try {
    return deps.secrets.open(sealed, context(id))
  } catch {
    return undefined
  }
}

/** The connection a hook names, with its secret (undefined when it has none that opens); undefined for an unknown id. */
export async function hookConnection(deps: Deps, id: string): Promise<{ connection: GitConnectionsTable; secret: string | undefined } | undefined> {
  const connection = await getConnection(deps.db.q, id)
  return connection && { connection, secret: await openConnectionSecret(deps, deps.db.q, id) }
}

function assertManager(actor: Actor, what: string): void {
  if (actor.run || !isAdmin(actor)) throw forbidden(`Only workspace owners and admins manage ${what}.`)
}

const connectionView = async (deps: Deps, q: Q, row: GitConnectionsTable): Promise<GitConnectionView> =>
  (await connectionViews(q, publicBaseUrl(deps.config), [row]))[0]

export function listConnections(deps: Deps, actor: Actor, params: ListParams) {
  assertManager(actor, 'git connections')
  const { q } = deps.db
  return listPage(deps.db, connectionsQuery(q), CONNECTION_LIST, params, (rows: GitConnectionsTable[]) => connectionViews(q, publicBaseUrl(deps.config), rows))
}

export async function getConnectionFor(deps: Deps, actor: Actor, id: string): Promise<GitConnectionView> {
  assertManager(actor, 'git connections')
  const row = await getConnection(deps.db.q, id)
  if (!row) throw notFound('git connection')
  return connectionView(deps, deps.db.q, row)
}

/** Makes a connection; its secret (the one given, or a generated one) comes back this once. */
export async function createConnection(
  deps: Deps,
  actor: Actor,
  input: CreateGitConnectionInput,
): Promise<{ git_connection: GitConnectionView; secret: string }> {
  assertManager(actor, 'git connections')
  const secret = input.secret ?? generatedSecret()
  return deps.db.tx(async ({ q }) => {
    const at = isoAt(deps.clock.now())
    const row: GitConnectionsTable = { id: newId(), provider: input.provider, name: input.name, created_by: actor.user.id, created_at: at, updated_at: at }
    await insertConnection(q, row)
    await putSealedSecret(q, row.id, sealSecret(deps.secrets, row.id, secret))
    return { git_connection: await connectionView(deps, q, row), secret }
  })
}

export async function updateConnection(deps: Deps, actor: Actor, id: string, input: UpdateGitConnectionInput): Promise<GitConnectionView> {
  assertManager(actor, 'git connections')
  return deps.db.tx(async ({ q }) => {
    if (!(await getConnection(q, id))) throw notFound('git connection')
    await updateConnectionRow(q, id, { ...(input.name !== undefined ? { name: input.name } : {}), updated_at: isoAt(deps.clock.now()) })
    if (input.secret !== undefined) await putSealedSecret(q, id, sealSecret(deps.secrets, id, input.secret))
    return connectionView(deps, q, (await getConnection(q, id))!)
  })
}

/** Deletes a connection with its repositories, their resources and pipelines; the cards stay. */
export async function deleteConnection(deps: Deps, actor: Actor, id: string): Promise<void> {
  assertManager(actor, 'git connections')
  await deps.db.tx(async ({ q }) => {
    if (!(await deleteConnectionRow(q, id))) throw notFound('git connection')
  })
}

// Repositories.

/** A repository the actor sees: owners and admins every one, others those on a board they see; 404 otherwise. */
export async function visibleRepository(q: Q, actor: Actor, id: string, what = 'git repository'): Promise<GitRepositoriesTable> {
  const row = await getRepository(q, id)
  if (!row) throw notFound(what)
  if (actor.run ? row.board_id === actor.run.board : isAdmin(actor)) return row
  if (row.board_id !== null && (await seesBoard(q, actor, row.board_id))) return row
  throw notFound(what)
}

/** `expand=board` of repositories: each one's board, or null. */
async function expandRepositoryBoard(q: Q, items: GitRepositoryView[], expand: ReadonlySet<string>) {
  if (!expand.has('board')) return items
  const boards = new Map(
    (
      await boardViews(
        q,
        await getBoards(
          q,
          items.flatMap((i) => (i.board ? [i.board] : [])),
        ),
      )
    ).map((b) => [b.id, b]),
  )
  return items.map((i) => ({ ...i, expand: { board: i.board ? (boards.get(i.board) ?? null) : null } }))
}

export function listRepositories(deps: Deps, actor: Actor, params: ListParams & { board?: string; connection?: string }) {
  const { q } = deps.db
  let base = visibleRepositoriesQuery(q, actor.user, isAdmin(actor))
  if (params.board) base = base.where('git_repositories.board_id', '=', params.board)
  if (params.connection) base = base.where('git_repositories.connection_id', '=', params.connection)
  return listPage(
    deps.db,
    base,
    REPOSITORY_LIST,
    params,
    (rows: GitRepositoriesTable[], expand) =>
      expandRepositoryBoard(
        q,
        rows.map((r) => repositoryView(r)),
        expand,
      ),
    { anchored: Boolean(params.board) },
  )
}

export async function getRepositoryFor(deps: Deps, actor: Actor, id: string): Promise<GitRepositoryView> {
  return repositoryView(await visibleRepository(deps.db.q, actor, id))
}

/** The board a repository is put on: one the actor sees (422 naming `board` otherwise). */
async function boardFor(q: Q, actor: Actor, id: string | null): Promise<string | null> {
  if (id === null) return null
  if (!(await seesBoard(q, actor, id))) throw invalidField('board', 'No such board.')
  return id
}

/**
 * Rules need a board, and each `move_to` must be one of its lists; a rule that both moves into a list and sets the
 * completion must agree with that list's category (a `completed` list completes a card).
 */
export async function checkRules(q: Q, boardId: string | null, rules: readonly GitRule[]): Promise<void> {
  if (rules.length === 0) return
  if (boardId === null) throw invalidField('rules', 'Rules act on the repository’s board: set board first.')
  const lists = new Map((await listsOfBoard(q, boardId)).map((l) => [l.id, l]))
  for (const [i, rule] of rules.entries()) {
    if (rule.move_to === undefined) continue
    const list = lists.get(rule.move_to)
    if (!list) throw invalidField(`rules.${i}.move_to`, 'No such list on the repository’s board.')
    if (rule.complete !== undefined && rule.complete !== (list.category === 'completed'))
      throw invalidField(
        `rules.${i}.complete`,
        rule.complete
          ? 'A card completed leaves a list that is not of category completed: drop complete or move_to.'
          : 'A card moved into a completed list is completed.',
      )
  }
}

/** The web address of a repository named by hand, from the host's usual address when none is given. */
function defaultUrl(provider: GitConnectionsTable['provider'], fullName: string): string | undefined {
  if (provider === 'github') return `https://github.com/${fullName}`
  if (provider === 'gitlab') return `https://gitlab.com/${fullName}`
  return undefined
}

export async function createRepository(deps: Deps, actor: Actor, input: CreateGitRepositoryInput): Promise<GitRepositoryView> {
  assertManager(actor, 'git repositories')
  return deps.db.tx(async ({ q }) => {
    const connection = await getConnection(q, input.connection)
    if (!connection) throw invalidField('connection', 'No such git connection.')
    const url = input.url ?? defaultUrl(connection.provider, input.full_name)
    if (!url) throw invalidField('url', 'A repository of a Gitea connection needs its url.')
    const board = await boardFor(q, actor, input.board ?? null)
    const rules = input.rules ?? []
    await checkRules(q, board, rules)
    if (await repositoryByName(q, connection.id, input.full_name)) throw conflict(`The connection has a repository named ${input.full_name} already.`)
    const at = isoAt(deps.clock.now())
    const row: GitRepositoriesTable = {
      id: newId(),
      connection_id: connection.id,
      full_name: input.full_name,
      url,
      board_id: board,
      rules: JSON.stringify(rules),
      created_at: at,
      updated_at: at,
    }
    await insertRepository(q, row)
    return repositoryView(row)
  })
}

export async function updateRepository(deps: Deps, actor: Actor, id: string, input: UpdateGitRepositoryInput): Promise<GitRepositoryView> {
  assertManager(actor, 'git repositories')
  return deps.db.tx(async ({ q }) => {
    const row = await getRepository(q, id)
    if (!row) throw notFound('git repository')
    const board = input.board !== undefined ? await boardFor(q, actor, input.board) : row.board_id
    const rules = input.rules ?? rulesOf(row)
    // A new board is checked against the rules it keeps too.
    if (input.rules !== undefined || input.board !== undefined) await checkRules(q, board, rules)
    const set: Partial<GitRepositoriesTable> = { board_id: board, rules: JSON.stringify(rules), updated_at: isoAt(deps.clock.now()) }
    if (input.url !== undefined) set.url = input.url
    await updateRepositoryRow(q, id, set)
    return repositoryView((await getRepository(q, id))!)
  })
}

/** Deletes a repository with its resources and pipelines; the cards stay. */
export async function deleteRepository(deps: Deps, actor: Actor, id: string): Promise<void> {
  assertManager(actor, 'git repositories')
  await deps.db.tx(async ({ q }) => {
    if (!(await deleteRepositoryRow(q, id))) throw notFound('git repository')
  })
}

// Resources.

/** A resource the actor sees (through one of its cards or its repository's board; owners and admins every one); 404 otherwise. */
export async function visibleResource(q: Q, actor: Actor, id: string): Promise<GitResourcesTable> {
  const row = await visibleResourceRow(q, actor.user, isAdmin(actor), id)
  if (!row) throw notFound('git resource')
  return row
}

/** `expand=repository` of resources or pipelines (the caller sees the record, so its repository's name and board). */
export async function expandRepository<T extends { repository: string }>(q: Q, items: T[], expand: ReadonlySet<string>) {
  if (!expand.has('repository')) return items
  const repos = new Map((await getRepositories(q, [...new Set(items.map((i) => i.repository))])).map((r) => [r.id, repositoryView(r)]))
  return items.map((i) => ({ ...i, expand: { repository: repos.get(i.repository)! } }))
}

export async function listResources(deps: Deps, actor: Actor, params: ListParams & { repository?: string; card?: string }) {
  const { q } = deps.db
  const card = params.card ? (await visibleCard(q, actor, params.card)).id : undefined
  const base = visibleResourcesQuery(q, actor.user, isAdmin(actor), { repository: params.repository, card })
  const boards = await cardBoardsSeenBy(q, actor.user)
  return listPage(deps.db, base, RESOURCE_LIST, params, async (rows: GitResourcesTable[], expand) =>
    expandRepository(q, await resourceViews(q, rows, boards), expand),
  )
}

export async function getResourceFor(deps: Deps, actor: Actor, id: string, expand?: string): Promise<GitResourceView> {
  const { q } = deps.db
  const shown = parseExpand(expand, RESOURCE_LIST.expand)
  const row = await visibleResource(q, actor, id)
  const [view] = await expandRepository(q, await resourceViews(q, [row], await cardBoardsSeenBy(q, actor.user)), shown)
  return view
}

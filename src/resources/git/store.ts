// Git queries: connections and their sealed secrets, repositories, resources and the cards they link.
import { visibleBoardIds, type Viewer } from '../../access/visibility.js'
import type { ExpressionBuilder, SelectQueryBuilder } from 'kysely'
import type { Q } from '../../db/database.js'
import { rowsByIds } from '../../db/sql.js'
import type { DB, GitConnectionsTable, GitRepositoriesTable, GitResourceCardsTable, GitResourcesTable } from '../../db/types.js'
import type { Mention } from './mentions.js'

// Connections.
export const getConnection = (q: Q, id: string) => q.selectFrom('git_connections').selectAll().where('id', '=', id).executeTakeFirst()
export const connectionsQuery = (q: Q) => q.selectFrom('git_connections')
export const insertConnection = (q: Q, row: GitConnectionsTable) => q.insertInto('git_connections').values(row).execute()
export const updateConnectionRow = (q: Q, id: string, set: Partial<GitConnectionsTable>) =>
  q.updateTable('git_connections').set(set).where('id', '=', id).execute()
export const deleteConnectionRow = async (q: Q, id: string): Promise<boolean> =>
  Number((await q.deleteFrom('git_connections').where('id', '=', id).executeTakeFirst()).numDeletedRows) > 0
export const getSealedSecret = async (q: Q, connectionId: string): Promise<string | undefined> =>
  (await q.selectFrom('git_connection_secrets').select('secret_enc').where('connection_id', '=', connectionId).executeTakeFirst())?.secret_enc
/** Stores a connection's sealed secret, replacing the one it had. */
export async function putSealedSecret(q: Q, connectionId: string, sealed: string): Promise<void> {
  await q.deleteFrom('git_connection_secrets').where('connection_id', '=', connectionId).execute()
  await q.insertInto('git_connection_secrets').values({ connection_id: connectionId, secret_enc: sealed }).execute()
}

// Repositories.
export const getRepository = (q: Q, id: string) => q.selectFrom('git_repositories').selectAll().where('id', '=', id).executeTakeFirst()
export const getRepositories = (q: Q, ids: readonly string[]) => rowsByIds(q, 'git_repositories', ids)
/** A connection's repository by full name, ignoring case. */
export const repositoryByName = (q: Q, connectionId: string, fullName: string) =>
  q
    .selectFrom('git_repositories')
    .selectAll()
    .where('connection_id', '=', connectionId)
    .where((eb) => eb(eb.fn('lower', ['full_name']), '=', fullName.toLowerCase()))
    .executeTakeFirst()
/** The repositories of any connection with this full name, ignoring case. */
export const repositoriesNamed = (q: Q, fullName: string) =>
  q
    .selectFrom('git_repositories')
    .selectAll()
    .where((eb) => eb(eb.fn('lower', ['full_name']), '=', fullName.toLowerCase()))
    .orderBy('id')
    .limit(2)
    .execute()
export const insertRepository = (q: Q, row: GitRepositoriesTable) => q.insertInto('git_repositories').values(row).execute()
export const updateRepositoryRow = (q: Q, id: string, set: Partial<GitRepositoriesTable>) =>
  q.updateTable('git_repositories').set(set).where('id', '=', id).execute()
export const deleteRepositoryRow = async (q: Q, id: string): Promise<boolean> =>
  Number((await q.deleteFrom('git_repositories').where('id', '=', id).executeTakeFirst()).numDeletedRows) > 0

/** Base query of the repository list: every repository for owners and admins (`all`), else those on boards the viewer sees. */
export function visibleRepositoriesQuery(q: Q, viewer: Viewer, all: boolean) {
  const query = q.selectFrom('git_repositories')
  return all ? query : query.where('git_repositories.board_id', 'in', visibleBoardIds(q, viewer))
}

// Resources.
export const resourceAt = (q: Q, repositoryId: string, kind: GitResourcesTable['kind'], ref: string) =>
  q.selectFrom('git_resources').selectAll().where('repository_id', '=', repositoryId).where('kind', '=', kind).where('ref', '=', ref).executeTakeFirst()
export const insertResource = (q: Q, row: GitResourcesTable) => q.insertInto('git_resources').values(row).execute()
export const updateResourceRow = (q: Q, id: string, set: Partial<GitResourcesTable>) => q.updateTable('git_resources').set(set).where('id', '=', id).execute()

/**
 * A record of a repository that links cards through a table of its own: a git resource (`git_resource_cards`), and a
 * pipeline (`pipeline_cards`, which the pipelines family reads and writes through these helpers).
 */
export type CardLinked =
  { table: 'git_resources'; links: 'git_resource_cards'; key: 'resource_id' } | { table: 'pipelines'; links: 'pipeline_cards'; key: 'pipeline_id' }
const RESOURCE_LINKS = { table: 'git_resources', links: 'git_resource_cards', key: 'resource_id' } as const

/**
 * Base query of the list of such records: every one for owners and admins (`all`), else those linking a card of a board
 * the viewer sees, or of a repository on such a board; `only` narrows it to a repository's, or to those linking a card.
 */
export function visibleLinkedQuery<T extends CardLinked>(
  q: Q,
  { table, links, key }: T,
  viewer: Viewer,
  all: boolean,
  only: { repository?: string; card?: string } = {},
): SelectQueryBuilder<DB, T['table'], object> {
  // Typed as the resources' query whichever table it is (as rowsByIds types its table): both have id and repository_id.
  let query = q.selectFrom(table as CardLinked['table']) as unknown as SelectQueryBuilder<DB, 'git_resources', object>
  const linking = (eb: ExpressionBuilder<any, any>) => eb.selectFrom(links).select(`${links}.${key}`)
  if (only.repository) query = query.where(`${table}.repository_id` as 'git_resources.repository_id', '=', only.repository)
  if (only.card) query = query.where((eb: ExpressionBuilder<any, any>) => eb(`${table}.id`, 'in', linking(eb).where(`${links}.card_id`, '=', only.card!)))
  if (all) return query as unknown as SelectQueryBuilder<DB, T['table'], object>
  const boards = visibleBoardIds(q, viewer)
  return query.where((eb: ExpressionBuilder<any, any>) =>
    eb.or([
      eb(`${table}.id`, 'in', linking(eb).innerJoin('cards', 'cards.id', `${links}.card_id`).where('cards.board_id', 'in', boards)),
      eb(`${table}.repository_id`, 'in', eb.selectFrom('git_repositories').select('git_repositories.id').where('git_repositories.board_id', 'in', boards)),
    ]),
  ) as unknown as SelectQueryBuilder<DB, T['table'], object>
}

/** Base query of the resource list (see visibleLinkedQuery). */
export const visibleResourcesQuery = (q: Q, viewer: Viewer, all: boolean, only: { repository?: string; card?: string } = {}) =>
  visibleLinkedQuery(q, RESOURCE_LINKS, viewer, all, only)

/** One resource, if the viewer sees it (see visibleResourcesQuery). */
export const visibleResource = (q: Q, viewer: Viewer, all: boolean, id: string) =>
  visibleResourcesQuery(q, viewer, all).selectAll('git_resources').where('git_resources.id', '=', id).executeTakeFirst()

/** The cards each resource links (`among`: only those on these boards; all when undefined), oldest link first. */
export async function cardsOfResources(q: Q, ids: readonly string[], boards?: ReadonlySet<string>): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>()
  if (ids.length === 0) return out
  const rows = await q
    .selectFrom('git_resource_cards')
    .innerJoin('cards', 'cards.id', 'git_resource_cards.card_id')
    .select(['git_resource_cards.resource_id', 'git_resource_cards.card_id', 'cards.board_id'])
    .where('git_resource_cards.resource_id', 'in', [...new Set(ids)])
    .orderBy('git_resource_cards.created_at')
    .orderBy('git_resource_cards.card_id')
    .execute()
  for (const r of rows) {
    if (boards && !boards.has(r.board_id)) continue
    const list = out.get(r.resource_id)
    if (list) list.push(r.card_id)
    else out.set(r.resource_id, [r.card_id])
  }
  return out
}

/** The boards of the cards a resource links, in one query. */
export const boardsOfCards = async (q: Q, cardIds: readonly string[]): Promise<Map<string, string>> =>
  cardIds.length === 0
    ? new Map()
    : new Map(
        (
          await q
            .selectFrom('cards')
            .select(['id', 'board_id'])
            .where('id', 'in', [...new Set(cardIds)])
            .execute()
        ).map((r) => [r.id, r.board_id]),
      )

/** Links cards to a record (see CardLinked); the ones it links already are left as they are. Returns the cards newly linked. */
export async function linkCardsTo(q: Q, { links, key }: CardLinked, id: string, cardIds: readonly string[], at: string): Promise<string[]> {
  if (cardIds.length === 0) return []
  // Typed as the resources' links whichever table it is (as rowsByIds types its table): they differ only in the key's name.
  const had = new Set(
    (
      await q
        .selectFrom(links as 'git_resource_cards')
        .select('card_id')
        .where(key as 'resource_id', '=', id)
        .where('card_id', 'in', [...cardIds])
        .execute()
    ).map((r) => r.card_id),
  )
  const fresh = [...new Set(cardIds)].filter((c) => !had.has(c))
  if (fresh.length)
    await q
      .insertInto(links as 'git_resource_cards')
      .values(fresh.map((card_id) => ({ [key]: id, card_id, created_at: at }) as unknown as GitResourceCardsTable))
      .execute()
  return fresh
}

/** Links cards to a resource (see linkCardsTo). */
export const linkCards = (q: Q, resourceId: string, cardIds: readonly string[], at: string) => linkCardsTo(q, RESOURCE_LINKS, resourceId, cardIds, at)

/** The resources linked to each card, newest first. */
export async function resourcesOfCards(q: Q, cardIds: readonly string[]): Promise<{ card_id: string; resource: GitResourcesTable }[]> {
  if (cardIds.length === 0) return []
  const rows = await q
    .selectFrom('git_resource_cards')
    .innerJoin('git_resources', 'git_resources.id', 'git_resource_cards.resource_id')
    .selectAll('git_resources')
    .select('git_resource_cards.card_id')
    .where('git_resource_cards.card_id', 'in', [...new Set(cardIds)])
    .orderBy('git_resources.updated_at', 'desc')
    .orderBy('git_resources.id', 'desc')
    .execute()
  return rows.map(({ card_id, ...resource }) => ({ card_id, resource }))
}

/** The cards a repository's branch and commit resources link (the ones a pipeline of that branch or commit concerns). */
export async function cardsOfRefs(q: Q, repositoryId: string, branch: string | null, commit: string | null): Promise<string[]> {
  const refs: [GitResourcesTable['kind'], string][] = []
  if (branch) refs.push(['branch', branch])
  if (commit) refs.push(['commit', commit])
  if (refs.length === 0) return []
  const rows = await q
    .selectFrom('git_resource_cards')
    .innerJoin('git_resources', 'git_resources.id', 'git_resource_cards.resource_id')
    .select('git_resource_cards.card_id')
    .where('git_resources.repository_id', '=', repositoryId)
    .where((eb) => eb.or(refs.map(([kind, ref]) => eb.and([eb('git_resources.kind', '=', kind), eb('git_resources.ref', '=', ref)]))))
    .orderBy('git_resource_cards.created_at')
    .execute()
  return [...new Set(rows.map((r) => r.card_id))]
}

/**
 * The cards that mentioned keys name, in order of mention: a key `<PREFIX>-<n>` names the card numbered n of the board
 * that has or had that prefix (an old prefix only for the numbers given before the board left it), not in the trash,
 * on a board not in the trash; only of `board` when given.
 */
export async function cardsMentioned(q: Q, mentions: readonly Mention[], board: string | null): Promise<{ id: string; board_id: string }[]> {
  if (mentions.length === 0) return []
  const rows = await q
    .selectFrom('cards')
    .innerJoin('key_prefixes', 'key_prefixes.board_id', 'cards.board_id')
    .innerJoin('boards', 'boards.id', 'cards.board_id')
    .select(['cards.id', 'cards.board_id', 'cards.key_num', 'key_prefixes.prefix'])
    .where((eb) =>
      eb.or(
        mentions.map((m) =>
          eb.and([
            eb('key_prefixes.prefix', '=', m.prefix),
            eb('cards.key_num', '=', m.num),
            eb.or([eb('key_prefixes.last_num', 'is', null), eb('key_prefixes.last_num', '>=', m.num)]),
          ]),
        ),
      ),
    )
    .where('cards.trashed', '=', 0)
    .where('boards.trashed_at', 'is', null)
    .$if(board !== null, (qb) => qb.where('cards.board_id', '=', board!))
    .execute()
  const order = new Map(mentions.map((m, i) => [`${m.prefix}-${m.num}`, i]))
  const rank = (r: (typeof rows)[number]) => order.get(`${r.prefix}-${Number(r.key_num)}`) ?? 0
  const seen = new Set<string>()
  return rows
    .sort((a, b) => rank(a) - rank(b))
    .filter((r) => !seen.has(r.id) && Boolean(seen.add(r.id)))
    .map((r) => ({ id: r.id, board_id: r.board_id }))
}

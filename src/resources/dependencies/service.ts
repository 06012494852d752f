// Dependencies between cards: a caller who sees both cards makes one; whoever sees either card reads and removes it.
// A dependency never closes a cycle: the check walks the graph from the blocked card, bounded, inside the write
// transaction, and PostgreSQL serialises these checks (serialiseChecks) so two requests cannot close one together.
import { type Actor, creatorId } from '../../access/roles.js'
import { boardsSeenAmong, visibleOnBoard } from '../../access/visibility.js'
import { isoAt } from '../../clock.js'
import type { Q } from '../../db/database.js'
import { serialiseChecks } from '../../db/dialect.js'
import type { CardDependenciesTable } from '../../db/types.js'
import type { Deps } from '../../deps.js'
import { conflict, invalidField, notFound, unprocessable } from '../../errors.js'
import { newId } from '../../ids.js'
import { listPage, parseExpand, type ListParams } from '../../query/list-page.js'
import { getCard } from '../cards/published.js'
import { announce } from './announce.js'
import { dependencyCards, dependencyViews } from './present.js'
import { DEPENDENCY_LIST } from './query.js'
import type { CreateDependencyInput, DependencyView } from './schema.js'
import { blockedBy, cardsBrief, deleteDependencyRow, findDependency, getDependency, insertDependency, visibleDependenciesQuery } from './store.js'

/** The advisory lock key of the dependency graph's cycle check (any fixed number; 'deps'). */
const GRAPH_LOCK = 0x64657073
/** How far the cycle check walks before it gives up: cards visited, and steps from the blocked card. */
export const WALK_LIMITS = { cards: 10_000, depth: 1_000 }
const IN_LIST = 500

/**
 * The path blocked → … → blocker through existing dependencies, if there is one (then blocker → blocked would close a
 * cycle): a breadth-first walk, one query per step (and per 500 cards of a step), bounded by WALK_LIMITS.
 */
async function pathBetween(q: Q, from: string, to: string): Promise<string[] | undefined> {
  const cameFrom = new Map<string, string | null>([[from, null]])
  const tooMany = () => unprocessable('The dependencies reachable from this card are too many to check for a cycle; remove some first.')
  let frontier = [from]
  for (let depth = 0; frontier.length > 0; depth++) {
    if (depth >= WALK_LIMITS.depth) throw tooMany()
    const next: string[] = []
    for (let i = 0; i < frontier.length; i += IN_LIST) {
      // At most one edge more than the walk may take, so a wide step cannot read an unbounded number of rows.
      const edges = await blockedBy(q, frontier.slice(i, i + IN_LIST), WALK_LIMITS.cards + 1)
      if (edges.length > WALK_LIMITS.cards) throw tooMany()
      for (const edge of edges) {
        if (cameFrom.has(edge.blocked_id)) continue
        cameFrom.set(edge.blocked_id, edge.blocker_id)
        if (cameFrom.size > WALK_LIMITS.cards) throw tooMany()
        if (edge.blocked_id === to) {
          const path = [to]
          for (let at = cameFrom.get(to); at; at = cameFrom.get(at)) path.unshift(at)
          return path
        }
        next.push(edge.blocked_id)
      }
    }
    frontier = next
  }
  return undefined
}

/** A card the caller sees; 404 otherwise. */
const visibleCard = async (q: Q, actor: Actor, id: string) => visibleOnBoard(q, actor, await getCard(q, id), 'card')

const visibleDependency = async (q: Q, actor: Actor, id: string): Promise<CardDependenciesTable> => {
  const row = await getDependency(q, id)
  if (!row) throw notFound('dependency')
  const boards = (await cardsBrief(q, [row.blocker_id, row.blocked_id])).map((c) => c.board_id)
  if (actor.run ? !boards.includes(actor.run.board) : (await boardsSeenAmong(q, actor.user, boards)).size === 0) throw notFound('dependency')
  return row
}

export async function getDependencyFor(deps: Deps, actor: Actor, id: string): Promise<DependencyView> {
  const { q } = deps.db
  return (await dependencyViews(q, [await visibleDependency(q, actor, id)]))[0]
}

/** `expand=cards`: both cards of each dependency as `{ id, key, title, completed }`, null for one the caller does not see. */
async function withCards(q: Q, actor: Actor, views: DependencyView[], expand: ReadonlySet<string>) {
  if (!expand.has('cards')) return views
  const cards = await dependencyCards(
    q,
    views.flatMap((v) => [v.blocker, v.blocked]),
    actor.user,
  )
  return views.map((v) => ({ ...v, expand: { blocker: cards.get(v.blocker) ?? null, blocked: cards.get(v.blocked) ?? null } }))
}

/** The dependencies the caller sees (with `card`, that card's, both directions; 404 when the card is not visible). */
export async function listDependencies(deps: Deps, actor: Actor, params: ListParams & { card?: string }) {
  const { q } = deps.db
  if (params.card) await visibleCard(q, actor, params.card)
  return listPage(deps.db, visibleDependenciesQuery(q, actor.user, params.card), DEPENDENCY_LIST, params, async (rows: CardDependenciesTable[], expand) =>
    withCards(q, actor, await dependencyViews(q, rows), expand),
  )
}

export async function getDependencyExpanded(deps: Deps, actor: Actor, id: string, expand?: string) {
  const { q } = deps.db
  return (await withCards(q, actor, [await getDependencyFor(deps, actor, id)], parseExpand(expand, DEPENDENCY_LIST.expand)))[0]
}

export function createDependency(deps: Deps, actor: Actor, input: CreateDependencyInput): Promise<DependencyView> {
  return deps.db.tx(async (tx) => {
    const { q } = tx
    const blocker = await visibleCard(q, actor, input.blocker)
    const blocked = await visibleCard(q, actor, input.blocked)
    if (blocker.id === blocked.id) throw invalidField('blocked', 'A card cannot block itself.')
    await serialiseChecks(q, GRAPH_LOCK)
    if (await findDependency(q, blocker.id, blocked.id)) throw conflict(`${blocker.key} already blocks ${blocked.key}.`)
    const path = await pathBetween(q, blocked.id, blocker.id)
    if (path) {
      const keys = new Map((await cardsBrief(q, path)).map((c) => [c.id, c.key]))
      const cycle = [blocker.id, ...path].map((id) => keys.get(id) ?? id).join(' → ')
      throw invalidField('blocked', `This dependency would close a cycle: ${cycle} (each blocks the next).`)
    }
    const row: CardDependenciesTable = {
      id: newId(),
      blocker_id: blocker.id,
      blocked_id: blocked.id,
      created_by: creatorId(actor),
      created_at: isoAt(deps.clock.now()),
    }
    await insertDependency(q, row)
    await announce(deps, tx, actor, 'dependency.created', row)
    return (await dependencyViews(q, [row]))[0]
  })
}

export function deleteDependency(deps: Deps, actor: Actor, id: string): Promise<void> {
  return deps.db.tx(async (tx) => {
    const row = await visibleDependency(tx.q, actor, id)
    if (!(await deleteDependencyRow(tx.q, id))) throw notFound('dependency')
    await announce(deps, tx, actor, 'dependency.deleted', row)
  })
}

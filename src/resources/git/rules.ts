// A repository's rules, run when a pull request opens or merges or a pipeline fails: the linked cards on the
// repository's board are moved and/or completed through the cards service, as the connection (actor kind `git`), with
// the usual card events. Those events start no event automation (like a run's), so an automation cannot loop on them.
import type { Actor } from '../../access/roles.js'
import type { Tx } from '../../db/database.js'
import type { GitConnectionsTable, GitRepositoriesTable, UsersTable } from '../../db/types.js'
import type { Deps } from '../../deps.js'
import { HttpError } from '../../errors.js'
import { updateCardIn } from '../cards/service.js'
import { rulesOf } from './present.js'
import type { RuleTrigger } from './schema.js'
import { boardsOfCards, getConnection } from './store.js'

/**
 * The connection as the actor of what its hooks change: it sees the repository's board only, and is named by its id
 * and name. `user` is a stand-in that matches no member row and is never written.
 */
export function gitActor(connection: GitConnectionsTable, repository: GitRepositoriesTable): Actor {
  const as = { id: connection.id, name: connection.name, kind: 'git' as const }
  const user: UsersTable = { id: `git:${connection.id}`, email: '', name: connection.name, role: 'member', kind: 'human', created_at: connection.created_at }
  return { user, tokenId: '', permission: 'write', run: { id: `git:${connection.id}`, board: repository.board_id ?? '', as } }
}

/**
 * Runs the repository's rules for `trigger` on the cards (those on its board; none when it has no board), each card's
 * change in a savepoint: a card the rule cannot change (trashed since, a list gone) is left as it is. Returns how many
 * card changes were made.
 */
export async function runRules(deps: Deps, tx: Tx, repository: GitRepositoriesTable, trigger: RuleTrigger, cardIds: readonly string[]): Promise<number> {
  if (repository.board_id === null || cardIds.length === 0) return 0
  const rules = rulesOf(repository).filter((r) => r.on === trigger)
  if (rules.length === 0) return 0
  const connection = await getConnection(tx.q, repository.connection_id)
  if (!connection) return 0
  const actor = gitActor(connection, repository)
  const boards = await boardsOfCards(tx.q, cardIds)
  let changed = 0
  for (const id of cardIds) {
    if (boards.get(id) !== repository.board_id) continue
    for (const rule of rules) {
      const change = { ...(rule.move_to !== undefined ? { list: rule.move_to } : {}), ...(rule.complete !== undefined ? { completed: rule.complete } : {}) }
      try {
        await tx.savepoint((sp) => updateCardIn(deps, sp, actor, id, change))
        changed++
      } catch (err) {
        if (!(err instanceof HttpError)) throw err
      }
    }
  }
  return changed
}

// Search runs the families' own list functions with a text filter, so visibility and paging are theirs.
import type { Actor } from '../../access/roles.js'
import type { Deps } from '../../deps.js'
import { quoteFilterString as quoted } from '../../filter/index.js'
import { listCards } from '../cards/service.js'
import { listComments } from '../comments/service.js'
import { listNotes } from '../notes/service.js'
import { SEARCH_TYPES, type SearchInput, type SearchResults, type SearchType } from './schema.js'

const anyOf = (fields: string[], text: string) => `(${fields.map((f) => `${f} ~ ${quoted(text)}`).join(' || ')})`

export async function search(deps: Deps, actor: Actor, input: SearchInput): Promise<SearchResults> {
  const types = new Set<SearchType>(input.types ? input.types.split(',').map((t) => t.trim() as SearchType) : SEARCH_TYPES)
  const page = { page: input.page, per_page: input.per_page, sort: '-updated' }
  const onBoard = (field: string) => (input.board ? ` && ${field} = ${quoted(input.board)}` : '')
  const [cards, comments, notes] = await Promise.all([
    types.has('cards') ? listCards(deps, actor, { ...page, trashed: false, filter: anyOf(['title', 'description'], input.q) + onBoard('board') }) : undefined,
    types.has('comments')
      ? listComments(deps, actor, { ...page, filter: `${anyOf(['body'], input.q)} && card.trashed = false${onBoard('card.board')}` })
      : undefined,
    types.has('notes') ? listNotes(deps, actor, { ...page, filter: anyOf(['title', 'body'], input.q) + onBoard('board') }) : undefined,
  ])
  return { q: input.q, ...(cards && { cards }), ...(comments && { comments }), ...(notes && { notes }) }
}

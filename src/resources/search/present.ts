// A page of index matches → search results: each record's title, card and board, and the snippet that shows its match.
import type { Q } from '../../db/database.js'
import type { SearchHit, SearchScope } from '../../db/full-text.js'
import type { SearchResult } from './schema.js'
import { cardRefs, commentCards, noteRefs } from './store.js'

/** The body's snippet when the match is there, else the title's (a match in the title alone), else what there is. */
const snippetOf = (hit: SearchHit): string => {
  const body = hit.body_snippet ?? ''
  const title = hit.title_snippet ?? ''
  if (body.includes('«')) return body
  if (title.includes('«')) return title
  return body || title
}

const seesBoard = (scope: SearchScope, board: string): boolean =>
  'only' in scope.boards ? scope.boards.only.includes(board) : !scope.boards.except.includes(board)

/**
 * The results of a page of matches, in its order, each record's current title and place read in one query per kind. A
 * record deleted between the index's read and this one is left out. A note's card shows when the caller sees it.
 */
export async function resultsOf(q: Q, hits: readonly SearchHit[], scope: SearchScope): Promise<SearchResult[]> {
  const idsOf = (kind: SearchHit['kind']) => hits.filter((h) => h.kind === kind).map((h) => h.record_id)
  const [comments, notes] = await Promise.all([commentCards(q, idsOf('comment')), noteRefs(q, idsOf('note'))])
  const commentCard = new Map(comments.map((c) => [c.id, c.card_id]))
  const noteOf = new Map(notes.map((n) => [n.id, n]))
  const cardIds = [...idsOf('card'), ...comments.map((c) => c.card_id), ...notes.flatMap((n) => (n.card_id ? [n.card_id] : []))]
  const cards = new Map((await cardRefs(q, cardIds)).map((c) => [c.id, c]))
  const ref = (id: string | null | undefined) => {
    const card = id ? cards.get(id) : undefined
    return card && { id: card.id, key: card.key, title: card.title }
  }
  const results: SearchResult[] = []
  for (const hit of hits) {
    const base = { type: hit.kind, id: hit.record_id, snippet: snippetOf(hit), score: Number(hit.score) }
    if (hit.kind === 'note') {
      const note = noteOf.get(hit.record_id)
      if (!note) continue
      const card = note.card_id ? cards.get(note.card_id) : undefined
      const shown = card && card.trashed === 0 && seesBoard(scope, card.board_id)
      results.push({ ...base, title: note.title, card: shown ? ref(card.id)! : null, board: note.board_id })
      continue
    }
    const card = cards.get(hit.kind === 'card' ? hit.record_id : (commentCard.get(hit.record_id) ?? ''))
    if (!card) continue
    results.push({ ...base, title: card.title, card: ref(card.id)!, board: card.board_id })
  }
  return results
}

// /cards/KEY: the card's board behind, the card's detail in a dialog over it (Esc or Close goes back to the board).
import { useEffect, useState } from 'preact/hooks'
import { useLocation } from 'preact-iso'
import { api, ok, errorText, type Card } from '../api/client'
import { BoardView } from '../board/board-view'
import { board, cards, filter } from '../store/board'
import { CardDetail } from './card-detail'

export function CardRoute({ cardKey: raw }: { cardKey?: string }) {
  const cardKey = (raw ?? '').toUpperCase()
  const loc = useLocation()
  const [found, setFound] = useState<Card | null>(null)
  const [error, setError] = useState<string | null>(null)
  useEffect(() => {
    setError(null)
    const held = [...cards.value.values()].find((c) => c.key === cardKey)
    if (held) return setFound(held)
    ok(api.GET('/v1/cards', { params: { query: { filter: `key = "${cardKey.replace(/"/g, '')}"`, per_page: 1 } } })).then(
      (page) => (page.items[0] ? setFound(page.items[0]) : setError(`No card ${cardKey}, or you cannot see it.`)),
      (err: unknown) => setError(errorText(err)),
    )
  }, [cardKey])
  if (error)
    return (
      <main class="page">
        <p class="error">{error}</p>
        <a href="/">Back to your boards</a>
      </main>
    )
  if (!found) return <p class="loading-page">Loading…</p>
  const close = () => loc.route(`/boards/${board.value?.id ?? found.board}${filter.value ? `?filter=${encodeURIComponent(filter.value)}` : ''}`)
  return (
    <BoardView id={found.board}>
      <CardDetail cardId={found.id} onClose={close} />
    </BoardView>
  )
}

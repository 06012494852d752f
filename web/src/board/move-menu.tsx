// "Move to…": the card's lists as buttons (the way to move on a phone, or without dragging), to the top or the bottom.
import { useEffect, useRef } from 'preact/hooks'
import type { Card } from '../api/client'
import { cardsByList, lists } from '../store/board'

export function MoveMenu(props: { card: Card; onMove: (list: string, index: number) => void; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null)
  useEffect(() => {
    ref.current?.showModal()
  }, [])
  const count = (list: string) => (cardsByList.value.get(list) ?? []).filter((c) => c.id !== props.card.id).length
  return (
    <dialog ref={ref} class="move-menu" aria-labelledby="move-title" onClose={props.onClose}>
      <h2 id="move-title">Move {props.card.key} to…</h2>
      <ul>
        {lists.value.map((l) => (
          <li key={l.id}>
            <span class="move-list-name">
              {l.name}
              {l.id === props.card.list && <span class="muted small"> (here now)</span>}
            </span>
            <span class="move-actions">
              <button type="button" onClick={() => props.onMove(l.id, 0)} aria-label={`Move to the top of ${l.name}`}>
                Top
              </button>
              <button type="button" onClick={() => props.onMove(l.id, count(l.id))} aria-label={`Move to the bottom of ${l.name}`}>
                Bottom
              </button>
            </span>
          </li>
        ))}
      </ul>
      <button type="button" class="link" onClick={() => ref.current?.close()}>
        Cancel
      </button>
    </dialog>
  )
}

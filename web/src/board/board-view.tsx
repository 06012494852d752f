// A board as columns (its lists) of cards. Cards move by dragging (board/dnd.ts: mouse, pen, touch), by keyboard
// (focus a card, Space to pick it up, arrows to move it, Space to drop, Esc to cancel) and by each card's "Move to…"
// menu. Moves show at once (store/board.ts); changes made elsewhere arrive through the change feed.
import { signal } from '@preact/signals'
import type { ComponentChildren } from 'preact'
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks'
import { useLocation } from 'preact-iso'
import type { Card } from '../api/client'
import { startFeed } from '../live/feed'
import { addList, board, cards, cardsByList, createCard, filter, filterError, lists, loadError, loading, moveCard, openBoard } from '../store/board'
import { toastError } from '../store/toast'
import { boardKeys } from '../ui/keys'
import { CardTile } from './card-tile'
import { pointerDrag, type DropTarget } from './dnd'
import { FilterBar } from './filter-bar'
import { MoveMenu } from './move-menu'

/** Where a dragged or keyboard-lifted card would land, shown as a gap. */
const dropAt = signal<DropTarget | null>(null)
const draggingId = signal<string | null>(null)
/** The card lifted with the keyboard, and the live region's sentence. */
const lifted = signal<string | null>(null)
const announcement = signal('')
const focusedId = signal<string | null>(null)
const newCardList = signal<string | null>(null)

export function BoardRoute({ id }: { id?: string }) {
  return <BoardView id={id!} />
}

function directions(e: KeyboardEvent) {
  return {
    up: e.key === 'k' || e.key === 'ArrowUp',
    down: e.key === 'j' || e.key === 'ArrowDown',
    left: e.key === 'h' || e.key === 'ArrowLeft',
    right: e.key === 'l' || e.key === 'ArrowRight',
  }
}

function listName(id: string) {
  return lists.value.find((l) => l.id === id)?.name ?? 'a list'
}

async function doMove(cardId: string, list: string, index: number) {
  try {
    await moveCard(cardId, list, index)
  } catch (err) {
    toastError(err)
  }
}

function focusCard(id: string | null) {
  if (!id) return
  focusedId.value = id
  const el = () => document.querySelector<HTMLElement>(`.cards [data-card-id="${id}"]`)
  // Focused at once when the card is drawn already (j/k), else once the move has redrawn it.
  if (el()) el()!.focus()
  else requestAnimationFrame(() => el()?.focus())
}

export function BoardView(props: { id: string; children?: ComponentChildren }) {
  const loc = useLocation()
  const filterText = loc.path.startsWith('/boards/') ? (loc.query.filter ?? '') : filter.value
  const root = useRef<HTMLDivElement>(null)
  const [menuFor, setMenuFor] = useState<Card | null>(null)

  useEffect(() => {
    // Opening a card and closing it again keeps the board as loaded (the change feed keeps it current).
    if (board.value?.id === props.id && filter.value === filterText && !filterError.value) return
    void startFeed().then(() => openBoard(props.id, filterText))
  }, [props.id, filterText])

  useEffect(() => {
    const el = root.current
    if (!el) return
    return pointerDrag(el, {
      start: (id) => {
        draggingId.value = id
      },
      over: (t) => {
        dropAt.value = t
      },
      drop: (id, t) => {
        draggingId.value = null
        void doMove(id, t.list, t.index)
      },
      cancel: () => {
        draggingId.value = null
      },
    })
  }, [board.value?.id])

  useEffect(() => {
    boardKeys.newCard = () => {
      const focused = focusedId.value ? cards.value.get(focusedId.value) : undefined
      newCardList.value = focused?.list ?? lists.value[0]?.id ?? null
    }
    return () => {
      boardKeys.newCard = undefined
    }
  }, [])

  // The keyboard-lifted card is drawn anew where it would land: keep the focus on it.
  useLayoutEffect(() => {
    if (lifted.value) document.querySelector<HTMLElement>('.card.lifted')?.focus()
  })
  // While a card is lifted, the arrows move the gap where it would land, Space or Enter drops it, Esc puts it back.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const id = lifted.value
      const card = id ? cards.value.get(id) : undefined
      if (!id || !card) return
      const columns = lists.value
      const grouped = cardsByList.value
      const at = dropAt.value ?? { list: card.list, index: 0 }
      const li = columns.findIndex((l) => l.id === at.list)
      const size = (l: string) => (grouped.get(l) ?? []).filter((c) => c.id !== id).length
      const { up, down, left, right } = directions(e)
      let next: DropTarget | null = null
      if (up) next = { list: at.list, index: Math.max(0, at.index - 1) }
      else if (down) next = { list: at.list, index: Math.min(size(at.list), at.index + 1) }
      else if (left || right) {
        const l = columns[li + (left ? -1 : 1)]?.id
        if (l) next = { list: l, index: Math.min(size(l), at.index) }
      } else if (e.key === ' ' || e.key === 'Enter') {
        e.preventDefault()
        e.stopPropagation()
        lifted.value = null
        dropAt.value = null
        announcement.value = `${card.key} dropped in ${listName(at.list)} at position ${at.index + 1}.`
        void doMove(id, at.list, at.index).then(() => focusCard(id))
        return
      } else if (e.key === 'Escape') {
        e.preventDefault()
        e.stopPropagation()
        lifted.value = null
        dropAt.value = null
        announcement.value = `Move of ${card.key} cancelled.`
        focusCard(id)
        return
      } else return
      e.preventDefault()
      e.stopPropagation()
      if (next) {
        dropAt.value = next
        announcement.value = `${listName(next.list)}, position ${next.index + 1} of ${size(next.list) + 1}.`
      }
    }
    document.addEventListener('keydown', onKey, true)
    return () => document.removeEventListener('keydown', onKey, true)
  }, [])

  const b = board.value
  if (loadError.value) {
    return (
      <main class="page">
        <p class="error">{loadError.value}</p>
        <a href="/">Back to your boards</a>
      </main>
    )
  }
  if (!b || b.id !== props.id) return <p class="loading-page">{loading.value ? 'Loading the board…' : ''}</p>

  const grouped = cardsByList.value
  const columns = lists.value
  const firstCard = columns.map((l) => grouped.get(l.id)?.[0]).find((c) => c)
  const tabStop = focusedId.value && cards.value.has(focusedId.value) ? focusedId.value : firstCard?.id

  const applyFilter = (f: string) => loc.route(f ? `/boards/${b.id}?filter=${encodeURIComponent(f)}` : `/boards/${b.id}`)

  // The board's keys on a focused card: j/k or ↑/↓ within a column, h/l or ←/→ across, Enter opens, m the move menu,
  // Space picks up (then liftedKeys below has the keys until the card is dropped or put back).
  const onKeyDown = (e: KeyboardEvent) => {
    if (lifted.value) return
    const tile = (e.target as HTMLElement).closest<HTMLElement>('[data-card-id]')
    if (!tile || (e.target as HTMLElement).closest('input, textarea, select, button')) return
    if (e.ctrlKey || e.metaKey || e.altKey) return
    const id = tile.dataset.cardId!
    const card = cards.value.get(id)
    if (!card) return
    const col = columns.findIndex((l) => l.id === card.list)
    const inCol = grouped.get(card.list) ?? []
    const row = inCol.findIndex((c) => c.id === id)
    const { up, down, left, right } = directions(e)
    if (down || up) {
      e.preventDefault()
      focusCard(inCol[Math.max(0, Math.min(inCol.length - 1, row + (down ? 1 : -1)))]?.id ?? null)
    } else if (left || right) {
      e.preventDefault()
      for (let c = col + (left ? -1 : 1); c >= 0 && c < columns.length; c += left ? -1 : 1) {
        const there = grouped.get(columns[c].id) ?? []
        if (there.length) return focusCard(there[Math.min(row, there.length - 1)].id)
      }
    } else if (e.key === 'Enter') {
      e.preventDefault()
      loc.route(`/cards/${card.key}`)
    } else if (e.key === 'm') {
      e.preventDefault()
      setMenuFor(card)
    } else if (e.key === ' ') {
      e.preventDefault()
      lifted.value = id
      dropAt.value = { list: card.list, index: row }
      announcement.value = `Picked up ${card.key}. Arrow keys move it, Space drops it, Escape cancels.`
    }
  }

  const onClick = (e: MouseEvent) => {
    const el = e.target as HTMLElement
    if (el.closest('button, a, input, textarea, form')) return
    const tile = el.closest<HTMLElement>('[data-card-id]')
    if (tile) loc.route(`/cards/${tile.dataset.key}`)
  }

  return (
    <main class="board-page">
      <div class="board-head">
        <h1>
          <span class="board-key">{b.key_prefix}</span> {b.name}
        </h1>
        <FilterBar value={filterText} error={filterError.value} onApply={applyFilter} />
      </div>
      <p id="dnd-help" class="sr-only">
        Enter opens the card. Space picks it up to move it with the arrow keys; m opens the Move to menu.
      </p>
      <p class="sr-only" role="status" aria-live="assertive">
        {announcement.value}
      </p>
      <div class="board" ref={root} onKeyDown={onKeyDown} onClick={onClick}>
        {columns.map((l) => {
          const inList = grouped.get(l.id) ?? []
          // A card lifted with the keyboard shows at its slot; one dragged by a pointer stays where it was (faded) while
          // the gap shows where it would land: its element must stay in the page, as the browser sends the rest of a
          // touch to the element the finger went down on (if it left the board, the board could not stop the page
          // from scrolling, and the browser would cancel the drag).
          const others = lifted.value ? inList.filter((c) => c.id !== lifted.value) : inList
          const gap = dropAt.value?.list === l.id ? dropAt.value.index : -1
          const liftedCard = lifted.value ? cards.value.get(lifted.value) : undefined
          const slot = () =>
            liftedCard ? (
              <CardTile key="lifted" card={liftedCard} focused={true} lifted={true} onFocus={() => {}} onMoveMenu={() => {}} />
            ) : (
              <li key="gap" class="drop-gap" aria-hidden="true" />
            )
          const items = []
          // The index the gap counts in: the cards other than the one moving.
          let index = 0
          for (const c of others) {
            const dragged = c.id === draggingId.value
            if (!dragged && index === gap) items.push(slot())
            items.push(
              <CardTile
                key={c.id}
                card={c}
                focused={c.id === tabStop}
                lifted={false}
                dragging={dragged}
                onFocus={() => (focusedId.value = c.id)}
                onMoveMenu={() => setMenuFor(c)}
              />,
            )
            if (!dragged) index++
          }
          if (gap >= index) items.push(slot())
          return (
            <section key={l.id} class={`column cat-${l.category}${gap >= 0 ? ' drop-over' : ''}`} data-list-id={l.id} aria-labelledby={`list-${l.id}`}>
              <header class="column-head">
                <h2 id={`list-${l.id}`}>{l.name}</h2>
                <span class="count" aria-label={`${inList.length} cards`}>
                  {inList.length}
                </span>
              </header>
              <ol class="cards" aria-labelledby={`list-${l.id}`}>
                {items}
              </ol>
              <NewCard list={l.id} />
            </section>
          )
        })}
        <AddList />
      </div>
      {menuFor && (
        <MoveMenu
          card={menuFor}
          onClose={() => setMenuFor(null)}
          onMove={(list, index) => {
            const id = menuFor.id
            setMenuFor(null)
            void doMove(id, list, index).then(() => focusCard(id))
          }}
        />
      )}
      {props.children}
    </main>
  )
}

function NewCard(props: { list: string }) {
  const open = newCardList.value === props.list
  const [title, setTitle] = useState('')
  const input = useRef<HTMLTextAreaElement>(null)
  useEffect(() => {
    if (open) input.current?.focus()
  }, [open])
  if (!open)
    return (
      <button type="button" class="add-card" onClick={() => (newCardList.value = props.list)}>
        + Add a card
      </button>
    )
  const submit = async () => {
    const t = title.trim()
    if (!t) return
    try {
      await createCard(props.list, t)
      setTitle('')
    } catch (err) {
      toastError(err)
    }
  }
  return (
    <form
      class="new-card"
      onSubmit={(e) => {
        e.preventDefault()
        void submit()
      }}
    >
      <label class="sr-only" for={`new-${props.list}`}>
        Title of the new card
      </label>
      <textarea
        id={`new-${props.list}`}
        ref={input}
        rows={2}
        placeholder="Title of the card"
        value={title}
        onInput={(e) => setTitle(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && !e.shiftKey) {
            e.preventDefault()
            void submit()
          } else if (e.key === 'Escape') {
            e.preventDefault()
            newCardList.value = null
          }
        }}
      />
      <div class="row">
        <button type="submit" class="primary">
          Add card
        </button>
        <button type="button" class="link" onClick={() => (newCardList.value = null)}>
          Cancel
        </button>
      </div>
    </form>
  )
}

function AddList() {
  const [name, setName] = useState('')
  return (
    <form
      class="add-list"
      onSubmit={(e) => {
        e.preventDefault()
        if (!name.trim()) return
        addList(name.trim()).then(() => setName(''), toastError)
      }}
    >
      <label class="sr-only" for="new-list">
        New list name
      </label>
      <input id="new-list" placeholder="+ Add a list" value={name} onInput={(e) => setName(e.currentTarget.value)} />
    </form>
  )
}

// Dragging cards with a mouse, a pen or a finger: a small pointer-events implementation (no library). A mouse drag starts
// after 5 px of movement; a touch drag after a 250 ms press held still (moving sooner scrolls, as usual). While dragging,
// a copy of the card follows the pointer, the columns under it report where the card would land (`over`), the board
// scrolls near its edges, and the drop calls `drop`. Keyboard moves are the board view's (Space, arrows, Space).

export interface DropTarget {
  list: string
  index: number
}

export interface DragHandlers {
  start(cardId: string): void
  over(target: DropTarget | null): void
  drop(cardId: string, target: DropTarget): void
  cancel(): void
}

const MOUSE_SLOP = 5
const TOUCH_DELAY = 250
const TOUCH_SLOP = 8
const EDGE = 48

/** Where a card dragged at (x, y) would land: the column under the point and the index among its other cards. */
export function targetAt(x: number, y: number, dragged: HTMLElement): DropTarget | null {
  const column = document.elementFromPoint(x, y)?.closest<HTMLElement>('[data-list-id]')
  if (!column) return null
  const tiles = [...column.querySelectorAll<HTMLElement>('[data-card-id]')].filter((t) => t !== dragged)
  let index = 0
  for (const t of tiles) {
    const r = t.getBoundingClientRect()
    if (y > r.top + r.height / 2) index++
  }
  return { list: column.dataset.listId!, index }
}

/** Scrolls `el` when (x, y) is near its edges (horizontally, vertically, or both). */
function edgeScroll(el: Element | null, x: number, y: number, horizontal: boolean): void {
  if (!el) return
  const r = el.getBoundingClientRect()
  if (horizontal) {
    if (x < r.left + EDGE) el.scrollLeft -= 16
    else if (x > r.right - EDGE) el.scrollLeft += 16
  } else if (y < r.top + EDGE) el.scrollTop -= 12
  else if (y > r.bottom - EDGE) el.scrollTop += 12
}

/** Makes the cards under `root` draggable; returns the function that stops it. */
export function pointerDrag(root: HTMLElement, handlers: DragHandlers): () => void {
  let pending: { tile: HTMLElement; id: number; x: number; y: number; touch: boolean; timer?: number } | null = null
  let drag: { tile: HTMLElement; ghost: HTMLElement; dx: number; dy: number; target: DropTarget | null } | null = null
  let suppressClick = false

  const begin = (x: number, y: number) => {
    if (!pending) return
    const { tile } = pending
    const r = tile.getBoundingClientRect()
    const ghost = tile.cloneNode(true) as HTMLElement
    ghost.classList.add('drag-ghost')
    ghost.removeAttribute('data-card-id')
    ghost.setAttribute('aria-hidden', 'true')
    ghost.style.width = `${r.width}px`
    ghost.style.left = `${r.left}px`
    ghost.style.top = `${r.top}px`
    document.body.append(ghost)
    tile.classList.add('dragging')
    drag = { tile, ghost, dx: x - r.left, dy: y - r.top, target: null }
    pending = null
    handlers.start(tile.dataset.cardId!)
    move(x, y)
  }

  const move = (x: number, y: number) => {
    if (!drag) return
    drag.ghost.style.transform = `translate(${x - drag.dx - parseFloat(drag.ghost.style.left)}px, ${y - drag.dy - parseFloat(drag.ghost.style.top)}px) rotate(2deg)`
    const target = targetAt(x, y, drag.tile)
    if (target?.list !== drag.target?.list || target?.index !== drag.target?.index) {
      drag.target = target
      handlers.over(target)
    }
    edgeScroll(root, x, y, true)
    edgeScroll(document.elementFromPoint(x, y)?.closest('.cards') ?? null, x, y, false)
  }

  const end = (dropped: boolean) => {
    if (pending?.timer) clearTimeout(pending.timer)
    pending = null
    if (!drag) return
    const { tile, ghost, target } = drag
    drag = null
    ghost.remove()
    tile.classList.remove('dragging')
    suppressClick = true
    setTimeout(() => (suppressClick = false), 0)
    handlers.over(null)
    if (dropped && target) handlers.drop(tile.dataset.cardId!, target)
    else handlers.cancel()
  }

  const onDown = (e: PointerEvent) => {
    if (e.button !== 0 || drag) return
    const el = e.target as Element
    const tile = el.closest<HTMLElement>('[data-card-id]')
    if (!tile || !root.contains(tile) || el.closest('button, input, textarea, select')) return
    const touch = e.pointerType !== 'mouse'
    pending = { tile, id: e.pointerId, x: e.clientX, y: e.clientY, touch }
    if (touch) pending.timer = window.setTimeout(() => begin(pending!.x, pending!.y), TOUCH_DELAY)
  }
  const onMove = (e: PointerEvent) => {
    if (drag) {
      e.preventDefault()
      return move(e.clientX, e.clientY)
    }
    if (!pending || e.pointerId !== pending.id) return
    const distance = Math.hypot(e.clientX - pending.x, e.clientY - pending.y)
    if (pending.touch) {
      if (distance > TOUCH_SLOP) end(false) // a scroll, not a drag
    } else if (distance > MOUSE_SLOP) begin(e.clientX, e.clientY)
  }
  const onUp = () => end(true)
  const onCancel = () => end(false)
  const onKey = (e: KeyboardEvent) => {
    if (drag && e.key === 'Escape') {
      e.preventDefault()
      end(false)
    }
  }
  // While a touch drag runs, the page must not scroll: touchmove is cancelled (the listener is there from the start,
  // as browsers decide at touchstart whether a touch may scroll without asking the page).
  const onTouchMove = (e: TouchEvent) => {
    if (drag) e.preventDefault()
  }
  const onClick = (e: MouseEvent) => {
    if (suppressClick) {
      e.preventDefault()
      e.stopPropagation()
    }
  }
  const onContextMenu = (e: Event) => {
    if (drag || pending?.touch) e.preventDefault()
  }
  const onDragStart = (e: DragEvent) => {
    if ((e.target as Element).closest?.('[data-card-id]')) e.preventDefault()
  }
  root.addEventListener('pointerdown', onDown)
  window.addEventListener('pointermove', onMove, { passive: false })
  window.addEventListener('pointerup', onUp)
  window.addEventListener('pointercancel', onCancel)
  window.addEventListener('keydown', onKey, true)
  root.addEventListener('touchmove', onTouchMove, { passive: false })
  root.addEventListener('click', onClick, true)
  root.addEventListener('contextmenu', onContextMenu)
  root.addEventListener('dragstart', onDragStart)
  return () => {
    end(false)
    root.removeEventListener('pointerdown', onDown)
    window.removeEventListener('pointermove', onMove)
    window.removeEventListener('pointerup', onUp)
    window.removeEventListener('pointercancel', onCancel)
    window.removeEventListener('keydown', onKey, true)
    root.removeEventListener('touchmove', onTouchMove)
    root.removeEventListener('click', onClick, true)
    root.removeEventListener('contextmenu', onContextMenu)
    root.removeEventListener('dragstart', onDragStart)
  }
}

// Keyboard shortcuts, never while typing in a field: `c` new card (on a board), `/` search, `?` this help, `j`/`k` the
// next or previous card, `h`/`l` the next column (board/board-view.tsx handles the board's own keys), Esc closes.
import { signal } from '@preact/signals'
import { useEffect, useRef } from 'preact/hooks'
import { navigate } from '../store/nav'

export const helpOpen = signal(false)
/** The board's handler for `c` (new card), set while a board is open. */
export const boardKeys: { newCard?: () => void } = {}

export function typing(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null
  if (!el) return false
  return el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName)
}

export function installShortcuts(): () => void {
  const onKey = (e: KeyboardEvent) => {
    if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || typing(e.target)) return
    if (document.querySelector('dialog[open]:not(.help)')) return
    if (e.key === '/') {
      e.preventDefault()
      navigate('/search')
    } else if (e.key === '?') {
      e.preventDefault()
      helpOpen.value = !helpOpen.value
    } else if (e.key === 'c' && boardKeys.newCard) {
      e.preventDefault()
      boardKeys.newCard()
    }
  }
  document.addEventListener('keydown', onKey)
  return () => document.removeEventListener('keydown', onKey)
}

const KEYS: [string, string][] = [
  ['c', 'New card (on a board)'],
  ['/', 'Search'],
  ['j / k', 'Next / previous card in a column'],
  ['h / l, ← / →', 'Previous / next column'],
  ['Enter', 'Open the card'],
  ['Space', 'Pick up a card; arrows move it; Space drops; Esc cancels'],
  ['m', 'Move the focused card to another list'],
  ['?', 'This help'],
]

export function Help() {
  const ref = useRef<HTMLDialogElement>(null)
  useEffect(() => {
    const d = ref.current
    if (!d) return
    if (helpOpen.value && !d.open) d.showModal()
    if (!helpOpen.value && d.open) d.close()
  }, [helpOpen.value])
  return (
    <dialog ref={ref} class="help" aria-labelledby="help-title" onClose={() => (helpOpen.value = false)}>
      <h2 id="help-title">Keyboard shortcuts</h2>
      <dl class="keys">
        {KEYS.map(([k, what]) => (
          <div key={k}>
            <dt>
              <kbd>{k}</kbd>
            </dt>
            <dd>{what}</dd>
          </div>
        ))}
      </dl>
      <p class="muted small">Shortcuts do nothing while you type in a field.</p>
      <button type="button" onClick={() => (helpOpen.value = false)}>
        Close
      </button>
    </dialog>
  )
}

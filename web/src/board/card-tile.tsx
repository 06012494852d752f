// One card on the board: key, title, tags, assignees, due date, checklist progress, and its "Move to…" button.
import type { Card } from '../api/client'
import { tags as boardTags, users } from '../store/board'

const PRIORITY = ['', 'low', 'medium', 'high', 'urgent']
const initials = (name: string) =>
  name
    .split(/\s+/)
    .slice(0, 2)
    .map((w) => w[0]?.toUpperCase() ?? '')
    .join('')

export function dueLabel(due: string | null, completed: boolean): { text: string; late: boolean } | null {
  if (!due) return null
  const day = due.slice(0, 10)
  return {
    text: new Date(`${day}T00:00:00`).toLocaleDateString(undefined, { month: 'short', day: 'numeric' }),
    late: !completed && day < new Date().toISOString().slice(0, 10),
  }
}

export function CardTile(props: { card: Card; focused: boolean; lifted: boolean; dragging?: boolean; onFocus: () => void; onMoveMenu: () => void }) {
  const { card } = props
  const tagList = card.tags.map((id) => boardTags.value.find((t) => t.id === id)).filter((t) => t !== undefined)
  const due = dueLabel(card.due_date, card.completed)
  return (
    <li
      class={`card${props.lifted ? ' lifted' : ''}${props.dragging ? ' dragging' : ''}${card.completed ? ' done' : ''}`}
      data-card-id={card.id}
      data-key={card.key}
      tabIndex={props.focused ? 0 : -1}
      aria-label={`${card.key} ${card.title}`}
      aria-describedby="dnd-help"
      onFocus={props.onFocus}
    >
      <div class="card-top">
        <a class="card-key" href={`/cards/${card.key}`} draggable={false} tabIndex={-1}>
          {card.key}
        </a>
        <button
          type="button"
          class="icon move-button"
          aria-label={`Move ${card.key} to another list`}
          title="Move to…"
          tabIndex={-1}
          onClick={(e) => {
            e.stopPropagation()
            props.onMoveMenu()
          }}
        >
          ⇄
        </button>
      </div>
      <div class="card-title">{card.title}</div>
      {tagList.length > 0 && (
        <ul class="tags" aria-label="Tags">
          {tagList.map((t) => (
            <li key={t.id} class="tag" data-color={t.color ?? undefined}>
              {t.name}
            </li>
          ))}
        </ul>
      )}
      <div class="card-meta">
        {card.priority > 0 && <span class={`prio p${card.priority}`}>{PRIORITY[card.priority]}</span>}
        {due && <span class={`due${due.late ? ' late' : ''}`}>{due.text}</span>}
        {card.checklist_progress.total > 0 && (
          <span class="progress" title="Checklist items done">
            ☑ {card.checklist_progress.done}/{card.checklist_progress.total}
          </span>
        )}
        <span class="spacer" />
        {card.assignees.map((id) => {
          const name = users.value.get(id)?.name ?? '?'
          return (
            <span key={id} class="avatar" title={name}>
              {initials(name)}
            </span>
          )
        })}
      </div>
    </li>
  )
}

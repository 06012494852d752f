// The board's filter: the filter grammar (`priority >= 3 && tags ~ "bug"`), kept in the URL (?filter=); a filter the
// API refuses shows its message and points at the position it names.
import { useEffect, useState } from 'preact/hooks'
import type { ApiError } from '../api/client'

export function errorPosition(err: ApiError): number | null {
  const m = /\bat (\d+)\b/.exec(err.message)
  return m ? Number(m[1]) : null
}

export function FilterBar(props: { value: string; error: ApiError | null; onApply: (filter: string) => void }) {
  const [text, setText] = useState(props.value)
  useEffect(() => setText(props.value), [props.value])
  const at = props.error ? errorPosition(props.error) : null
  const failed = props.error?.message ?? ''
  return (
    <form
      class="filter-bar"
      role="search"
      onSubmit={(e) => {
        e.preventDefault()
        props.onApply(text.trim())
      }}
    >
      <label class="sr-only" for="filter-input">
        Filter cards
      </label>
      <input
        id="filter-input"
        class={props.error ? 'invalid' : ''}
        placeholder='Filter: priority >= 3 && tags ~ "bug"'
        value={text}
        spellcheck={false}
        autocomplete="off"
        aria-invalid={props.error ? 'true' : undefined}
        aria-describedby={props.error ? 'filter-error' : undefined}
        onInput={(e) => setText(e.currentTarget.value)}
      />
      <button type="submit">Filter</button>
      {props.value && (
        <button type="button" class="link" onClick={() => props.onApply('')}>
          Clear
        </button>
      )}
      {props.error && (
        <div id="filter-error" class="filter-error" role="alert">
          <span>{failed}</span>
          {at !== null && (
            <pre class="caret" aria-hidden="true">
              {text}
              {'\n'}
              {' '.repeat(Math.max(0, at - 1))}^
            </pre>
          )}
        </div>
      )}
    </form>
  )
}

// Search (`/` anywhere): cards, comments and notes by their words, results linking to their cards; the query in the URL.
import { useEffect, useRef, useState } from 'preact/hooks'
import { useLocation } from 'preact-iso'
import { api, ok, errorText, type Schemas } from '../api/client'

export function Search() {
  const loc = useLocation()
  const q = loc.query.q ?? ''
  const [text, setText] = useState(q)
  const [results, setResults] = useState<Schemas['SearchResult'][] | null>(null)
  const [error, setError] = useState<string | null>(null)
  const input = useRef<HTMLInputElement>(null)
  useEffect(() => input.current?.focus(), [])
  useEffect(() => {
    setText(q)
    if (!q) return setResults(null)
    setError(null)
    ok(api.GET('/v1/search', { params: { query: { q, per_page: 50 } } })).then(
      (r) => setResults(r.items),
      (err: unknown) => setError(errorText(err)),
    )
  }, [q])
  return (
    <main class="page">
      <h1>Search</h1>
      <form
        role="search"
        class="inline-form"
        onSubmit={(e) => {
          e.preventDefault()
          loc.route(`/search?q=${encodeURIComponent(text.trim())}`)
        }}
      >
        <label class="sr-only" for="search-input">
          Search
        </label>
        <input
          id="search-input"
          ref={input}
          type="search"
          placeholder="Search cards, comments and notes"
          value={text}
          onInput={(e) => setText(e.currentTarget.value)}
        />
        <button type="submit">Search</button>
      </form>
      {error && <p class="error">{error}</p>}
      {results && results.length === 0 && <p class="muted">Nothing found for “{q}”.</p>}
      {results && results.length > 0 && (
        <ol class="results">
          {results.map((r) => (
            <li key={`${r.type}-${r.id}`}>
              {r.card ? (
                <a href={`/cards/${r.card.key}`}>
                  <span class="card-key">{r.card.key}</span> {r.type === 'card' ? r.title : r.card.title}
                </a>
              ) : (
                <span>{r.title}</span>
              )}{' '}
              <span class="muted small">{r.type}</span>
              {r.snippet && <p class="snippet small">{r.snippet}</p>}
            </li>
          ))}
        </ol>
      )}
    </main>
  )
}

// The start page: the boards you see, grouped by folder (nested folders shown by their path), and a new board.
import { useEffect, useState } from 'preact/hooks'
import { useLocation } from 'preact-iso'
import { api, ok, errorText, type Board, type Folder } from '../api/client'
import { toastError } from '../store/toast'

interface Group {
  key: string
  title: string
  boards: Board[]
}

function groupsOf(folders: Folder[], boards: Board[]): Group[] {
  const byId = new Map(folders.map((f) => [f.id, f]))
  const pathOf = (f: Folder): string => {
    const names: string[] = []
    let at: Folder | undefined = f
    for (let n = 0; at && n < 8; n++) {
      names.unshift(at.name)
      at = at.parent ? byId.get(at.parent) : undefined
    }
    return names.join(' / ')
  }
  const ordered = [...folders].sort((a, b) => pathOf(a).localeCompare(pathOf(b)))
  const groups: Group[] = ordered.map((f) => ({ key: f.id, title: pathOf(f), boards: [] }))
  const loose: Group = { key: '', title: folders.length ? 'Not in a folder' : 'Boards', boards: [] }
  const index = new Map(groups.map((g) => [g.key, g]))
  for (const b of [...boards].sort((a, b) => a.name.localeCompare(b.name))) (b.folder && index.get(b.folder) ? index.get(b.folder)! : loose).boards.push(b)
  return [...groups.filter((g) => g.boards.length), ...(loose.boards.length ? [loose] : [])]
}

export function Home() {
  const loc = useLocation()
  const [data, setData] = useState<{ folders: Folder[]; boards: Board[] } | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [name, setName] = useState('')
  useEffect(() => {
    Promise.all([
      ok(api.GET('/v1/folders', { params: { query: { per_page: 500 } } })),
      ok(api.GET('/v1/boards', { params: { query: { per_page: 500 } } })),
    ]).then(
      ([f, b]) => setData({ folders: f.items, boards: b.items }),
      (err: unknown) => setError(errorText(err)),
    )
  }, [])
  const create = async (e: Event) => {
    e.preventDefault()
    try {
      const made = await ok(api.POST('/v1/boards', { body: { name } }))
      loc.route(`/boards/${made.board.id}`)
    } catch (err) {
      toastError(err)
    }
  }
  return (
    <main class="page">
      <h1>Boards</h1>
      {error && <p class="error">{error}</p>}
      {!data && !error && <p class="muted">Loading…</p>}
      {data && data.boards.length === 0 && <p class="muted">No boards yet: make the first one below.</p>}
      {data &&
        groupsOf(data.folders, data.boards).map((g) => (
          <section key={g.key} class="folder" aria-label={g.title}>
            <h2>{g.title}</h2>
            <ul class="board-grid">
              {g.boards.map((b) => (
                <li key={b.id}>
                  <a class="board-tile" href={`/boards/${b.id}`}>
                    <span class="board-key">{b.key_prefix}</span>
                    <span class="board-name">{b.name}</span>
                    {b.description && <span class="muted small clamp">{b.description}</span>}
                  </a>
                </li>
              ))}
            </ul>
          </section>
        ))}
      <form class="inline-form" onSubmit={(e) => void create(e)}>
        <label class="sr-only" for="new-board">
          New board name
        </label>
        <input id="new-board" placeholder="New board name" required value={name} onInput={(e) => setName(e.currentTarget.value)} />
        <button type="submit">Create board</button>
      </form>
    </main>
  )
}

// The top-level folders of src/ form layers: no import cycle between them (dependency-cruiser checks the finer rules).
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { test } from 'node:test'

const src = path.resolve('src')

/** Relative imports of every module, collapsed to the top-level entry of src/ they live in (`http`, `resources`, `server.ts`...). */
function folderGraph(): Map<string, Set<string>> {
  const top = (file: string) =>
    path
      .relative(src, file)
      .split(path.sep)[0]
      .replace(/\.(ts|js)$/, '')
  const graph = new Map<string, Set<string>>()
  const walk = (dir: string): string[] =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]))
  for (const file of walk(src).filter((f) => f.endsWith('.ts'))) {
    for (const m of fs.readFileSync(file, 'utf8').matchAll(/(?:from|import\()\s*'(\.[^']+)'/g)) {
      const from = top(file),
        to = top(path.resolve(path.dirname(file), m[1]))
      if (from !== to) (graph.get(from) ?? graph.set(from, new Set()).get(from)!).add(to)
    }
  }
  return graph
}

/** A cycle as a list of folders, or undefined. */
function findCycle(graph: Map<string, Set<string>>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>()
  const stack: string[] = []
  const visit = (n: string): string[] | undefined => {
    if (state.get(n) === 'done') return undefined
    if (state.get(n) === 'open') return [...stack.slice(stack.indexOf(n)), n]
    state.set(n, 'open')
    stack.push(n)
    for (const next of graph.get(n) ?? []) {
      const cycle = visit(next)
      if (cycle) return cycle
    }
    stack.pop()
    state.set(n, 'done')
    return undefined
  }
  for (const n of graph.keys()) {
    const cycle = visit(n)
    if (cycle) return cycle
  }
  return undefined
}

test('no import cycle between the top-level folders of src/', () => {
  const graph = folderGraph()
  assert.ok(graph.get('resources')?.has('http') && graph.get('http')?.has('access'), 'the graph is read (sanity)')
  assert.equal(findCycle(graph)?.join(' → '), undefined)
})

test('the cycle finder finds a planted cycle', () => {
  assert.deepEqual(
    findCycle(
      new Map([
        ['a', new Set(['b'])],
        ['b', new Set(['c'])],
        ['c', new Set(['a'])],
      ]),
    ),
    ['a', 'b', 'c', 'a'],
  )
  assert.equal(
    findCycle(
      new Map([
        ['a', new Set(['b'])],
        ['b', new Set(['c'])],
      ]),
    ),
    undefined,
  )
})

// The top-level folders of src/ form layers: no import cycle between them; and the finer rules of dependency-cruiser catch what they forbid.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
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

/**
 * The rules of .dependency-cruiser.cjs that `npm run layers` runs over src/, applied to a small planted tree (in a
 * temporary folder with the same layout) that breaks each of them once: every broken rule must be reported as an error.
 */
function plantedViolations(files: Record<string, string>): { rule: string; from: string; to: string; severity: string }[] {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-layers-'))
  const link = path.join(root, 'node_modules')
  try {
    for (const [name, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true })
      fs.writeFileSync(path.join(root, name), text)
    }
    fs.writeFileSync(path.join(root, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true } }))
    // express must resolve from the planted tree; the link is taken away before the folder is removed (below).
    fs.symlinkSync(path.resolve('node_modules'), link, 'dir')
    const run = spawnSync(
      process.execPath,
      [
        path.resolve('node_modules/dependency-cruiser/bin/dependency-cruise.mjs'),
        'src',
        '--config',
        path.resolve('.dependency-cruiser.cjs'),
        '--output-type',
        'json',
      ],
      {
        cwd: root,
        encoding: 'utf8',
      },
    )
    const report = JSON.parse(run.stdout) as { summary: { violations: { rule: { name: string; severity: string }; from: string; to: string }[] } }
    return report.summary.violations.map((v) => ({ rule: v.rule.name, from: v.from, to: v.to, severity: v.rule.severity }))
  } finally {
    // Unlinked first, so that no recursive removal can ever walk into the real node_modules through it.
    if (fs.lstatSync(link, { throwIfNoEntry: false })?.isSymbolicLink()) fs.unlinkSync(link)
    fs.rmSync(root, { recursive: true, force: true })
  }
}

test('the layer rules fail on a store reached from another family, express in a service, and a role check in a store', () => {
  const violations = plantedViolations({
    'src/access/roles.ts': "export type Role = 'owner' | 'member'\nexport const isAdminRole = (role: Role): boolean => role === 'owner'\n",
    // A store may use the role types, but not decide by role.
    'src/resources/boards/store.ts':
      "import type { Role } from '../../access/roles.js'\nimport { isAdminRole } from '../../access/roles.js'\nexport const seesAll = (role: Role) => isAdminRole(role)\n",
    'src/resources/tags/store.ts': "import type { Role } from '../../access/roles.js'\nexport const roleOf = (role: Role) => role\n",
    'src/resources/boards/published.ts': "export { seesAll } from './store.js'\n",
    'src/resources/cards/service.ts':
      "import type { Request } from 'express'\nimport { seesAll } from '../boards/store.js'\nexport const handle = (req: Request) => seesAll(req.method === 'GET' ? 'owner' : 'member')\n",
    // Through the owner's published.ts is the allowed way.
    'src/resources/lists/service.ts': "import { seesAll } from '../boards/published.js'\nexport const allowed = () => seesAll('member')\n",
  })
  const broken = violations.map((v) => `${v.severity} ${v.rule}: ${v.from} → ${v.to.replace(/^.*node_modules\//, 'node_modules/')}`).sort()
  assert.deepEqual(broken, [
    'error no-other-familys-store: src/resources/cards/service.ts → src/resources/boards/store.ts',
    'error no-role-checks-in-stores: src/resources/boards/store.ts → src/access/roles.ts',
    'error services-take-no-http: src/resources/cards/service.ts → node_modules/express/index.js',
  ])
})

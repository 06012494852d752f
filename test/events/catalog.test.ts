// Tests the event catalog against what the families define, and the subscription selector rules.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { eventCatalog } from '../../src/events/catalog.js'
import { eventNames, expandEventSelectors, familyOf, isEventName, matchesSelectors, subscribableEventNames } from '../../src/events/names.js'
import { PLANNED_EVENTS } from '../../src/events/planned.js'
import { MODULES } from '../../src/resources/index.js'

const EVENT_CATALOG = eventCatalog()

// What the families bring, read off the module list, so a new family's events need no edit here.
const EMITTED = MODULES.flatMap((m) => Object.keys(m.events ?? {}))
const PLANNED = Object.keys(PLANNED_EVENTS)
const EXPECTED = eventNames()

test('the catalog lists exactly the events the families and the planned list define, each with family, summary and documented fields', () => {
  assert.deepEqual([...EXPECTED].sort(), [...EMITTED, ...PLANNED].sort())
  assert.equal(new Set(EXPECTED).size, EXPECTED.length, 'no event is defined twice')
  assert.deepEqual(
    EVENT_CATALOG.map((e) => e.event),
    [...EXPECTED],
  )
  // A spot-check of known names and of the listing order, so the test fails if the catalog empties or reorders.
  assert.deepEqual(EXPECTED.slice(0, 3), ['card.created', 'card.updated', 'card.deleted'])
  // The families of the listing order come first, in it; a family added since follows them (src/events/names.ts).
  const listed = ['card', 'comment', 'checklist', 'list', 'board', 'tag', 'timer', 'question', 'agent', 'audit', 'webhook']
  assert.deepEqual(EXPECTED.filter((e) => listed.includes(familyOf(e))).slice(-2), ['audit.entry', 'webhook.test'])
  for (const name of ['comment.added', 'timer.stopped', 'question.answered', 'agent.cancelled']) assert.ok(EXPECTED.includes(name), name)
  assert.deepEqual([...new Set(EXPECTED.map(familyOf))].slice(0, listed.length), listed, 'families keep the order the catalog has always had')
  for (const e of EVENT_CATALOG) {
    assert.equal(e.family, e.event.split('.')[0])
    assert.equal(e.available, EMITTED.includes(e.event), e.event)
    assert.ok(e.summary.length > 5, e.event)
    assert.ok(e.fields.length > 0, e.event)
    const names = e.fields.map((f) => f.name)
    assert.equal(new Set(names).size, names.length, `${e.event}: no duplicate field`)
    for (const f of e.fields) assert.ok(f.type && f.description, `${e.event}.${f.name}`)
  }
})

const fieldsOf = (event: string) => EVENT_CATALOG.find((e) => e.event === event)!.fields.map((f) => f.name)

test('task events document their enrichment (names and links beside the ids)', () => {
  const enrichment = [
    'id',
    'key',
    'title',
    'url',
    'board',
    'list',
    'assignees',
    'tags',
    'priority',
    'priority_name',
    'start_date',
    'due_date',
    'completed',
    'description_excerpt',
    'created_by',
  ]
  for (const e of EXPECTED.filter((n) => n.startsWith('card.'))) {
    for (const f of enrichment) assert.ok(fieldsOf(e).includes(f), `${e} documents ${f}`)
  }
  assert.ok(fieldsOf('card.updated').includes('changes'))
  assert.ok(fieldsOf('card.moved').includes('from_list') && fieldsOf('card.moved').includes('to_list'))
  assert.ok(fieldsOf('card.assigned').includes('user') && fieldsOf('card.unassigned').includes('user'))
  assert.equal(EVENT_CATALOG.find((e) => e.event === 'card.created')!.fields.find((f) => f.name === 'priority')!.type, 'number')
})

test('comment, checklist, timer and agent events carry the task reference', () => {
  for (const e of ['comment.added', 'comment.deleted', 'checklist.item_completed', 'timer.started', 'timer.stopped']) {
    assert.ok(fieldsOf(e).includes('card'), e)
  }
  for (const e of EXPECTED.filter((n) => n.startsWith('agent.'))) {
    for (const f of ['agent', 'run', 'card']) assert.ok(fieldsOf(e).includes(f), `${e} documents ${f}`)
  }
  for (const f of ['id', 'name', 'category', 'board']) assert.ok(fieldsOf('list.created').includes(f))
  for (const f of ['board', 'user']) assert.ok(fieldsOf('board.member_added').includes(f))
  for (const f of ['id', 'name', 'color', 'board']) assert.ok(fieldsOf('tag.created').includes(f))
})

test('isEventName is exact', () => {
  assert.equal(isEventName('card.completed'), true)
  assert.equal(isEventName('webhook.test'), true)
  for (const n of ['card.*', '*', 'Card.created', 'card.created ', 'task.created', 'card', '']) assert.equal(isEventName(n), false, n)
})

test('expandEventSelectors: names, families and *', () => {
  assert.deepEqual(expandEventSelectors([]), new Set())
  assert.deepEqual(expandEventSelectors(['card.created', 'card.created']), new Set(['card.created']))
  const cards = expandEventSelectors(['card.*'])
  assert.ok(cards instanceof Set)
  assert.deepEqual(
    [...cards],
    EXPECTED.filter((e) => e.startsWith('card.')),
  )
  assert.ok(cards.has('card.moved'))
  const agents = expandEventSelectors(['agent.*', 'audit.entry'])
  assert.ok(agents instanceof Set && agents.size === EXPECTED.filter((e) => e.startsWith('agent.')).length + 1)
  const all = expandEventSelectors(['*'])
  assert.ok(all instanceof Set)
  assert.equal(all.size, EXPECTED.length - 1, '* is every event real activity produces; webhook.test only comes from the test action')
  assert.ok(!all.has('webhook.test'))
  assert.deepEqual([...all], [...subscribableEventNames()])
  assert.deepEqual(expandEventSelectors(['webhook.*']), new Set(['webhook.test']))
  assert.deepEqual(expandEventSelectors(['comment.*', 'tag.deleted']), new Set(['comment.added', 'comment.deleted', 'tag.deleted']))
})

test('expandEventSelectors names the first invalid entry', () => {
  assert.equal(expandEventSelectors(['card.created', 'card.exploded', 'nope']), 'invalid:card.exploded')
  assert.equal(expandEventSelectors(['task.*']), 'invalid:task.*')
  assert.equal(expandEventSelectors(['card.']), 'invalid:card.')
  assert.equal(expandEventSelectors(['**']), 'invalid:**')
  assert.equal(expandEventSelectors(['']), 'invalid:')
})

test('matchesSelectors', () => {
  assert.equal(matchesSelectors(['card.*'], 'card.moved'), true)
  assert.equal(matchesSelectors(['card.*'], 'comment.added'), false)
  assert.equal(matchesSelectors(['*'], 'agent.failed'), true)
  assert.equal(matchesSelectors(['*'], 'webhook.test'), false)
  assert.equal(matchesSelectors(['tag.created'], 'tag.created'), true)
  assert.equal(matchesSelectors(['tag.created'], 'tag.deleted'), false)
  assert.equal(matchesSelectors([], 'card.created'), false)
  assert.equal(matchesSelectors(['*'], 'card.exploded'), false)
})

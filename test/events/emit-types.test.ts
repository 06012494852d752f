// Type-level test of emitEvent: `data` must match the event's payload schema, checked by tsc when the build compiles
// this file (each `@ts-expect-error` fails the build if the line below it stops being an error).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { NewEvent } from '../../src/events/emit.js'
import type { Actor } from '../../src/access/roles.js'
import '../../src/resources/index.js'

const actor = {} as Actor
const tag = { id: 't1', name: 'bug', color: null, board: { id: 'b1', name: 'Launch' } }

const good: NewEvent = { name: 'tag.created', boardId: 'b1', data: tag, actor }
const unknownField: NewEvent = {
  name: 'tag.created',
  boardId: 'b1',
  // @ts-expect-error an unknown field is a compile error
  data: { ...tag, colour: 'red' },
  actor,
}
// @ts-expect-error a missing field is a compile error
const missingField: NewEvent = { name: 'tag.created', boardId: 'b1', data: { id: 't1', name: 'bug', board: tag.board }, actor }
// @ts-expect-error a field of the wrong type is a compile error
const wrongType: NewEvent = { name: 'tag.deleted', boardId: 'b1', data: { ...tag, color: 3 }, actor }
// @ts-expect-error `actor` comes from the event's actor, never from data
const withActor: NewEvent = { name: 'tag.deleted', boardId: 'b1', data: { ...tag, actor: { id: 'u', name: 'u' } }, actor }
// @ts-expect-error the data of one event does not pass for another
const otherEvent: NewEvent = { name: 'list.created', boardId: 'b1', data: tag, actor }
// @ts-expect-error an unknown event name is a compile error
const unknownName: NewEvent = { name: 'tag.renamed', boardId: 'b1', data: tag, actor }
// @ts-expect-error an event's data without its fields is a compile error (audit.entry, whose actor the payload states)
const planned: NewEvent = { name: 'audit.entry', boardId: null, data: {}, actor }

test('the typed emit cases above compile as stated (tsc checked them)', () => {
  assert.equal([good, unknownField, missingField, wrongType, withActor, otherEvent, unknownName, planned].length, 8)
})

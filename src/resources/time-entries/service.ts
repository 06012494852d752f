// Time entries and timers. Entries are seen through their card's board; a user changes their own, owners and admins
// any. A user has one running timer at most: starting one stops the other, with both events, in one transaction.
// Entries with time on a day of an approved timesheet of their user are locked (timesheet-approvals), whichever day
// they start on.
import { type Actor, isAdmin } from '../../access/roles.js'
import { boardsSeenAmong, seesBoard, visibleOnBoard } from '../../access/visibility.js'
import { DAY_MS, isoAt } from '../../clock.js'
import type { Q, Tx } from '../../db/database.js'
import type { CardsTable, TimeEntriesTable } from '../../db/types.js'
import type { Deps } from '../../deps.js'
import { badRequest, forbidden, notFound, invalidField } from '../../errors.js'
import { emitEvent } from '../../events/emit.js'
import { applyFilter } from '../../filter/index.js'
import { newId } from '../../ids.js'
import { listPage, parseExpand, parseSort, type ListParams } from '../../query/list-page.js'
import { ratesInForce } from '../billing-rates/service.js'
import { expandCard, taskEventRefs } from '../cards/present.js'
import type { CardView } from '../cards/schema.js'
import { visibleCard } from '../cards/service.js'
import { getCard } from '../cards/published.js'
import { refuseLockedTime } from '../timesheet-approvals/service.js'
import { userView } from '../users/present.js'
import type { UserView } from '../users/schema.js'
import { getUser, getUsers } from '../users/published.js'
import { entryViews, secondsOf, timerEventData } from './present.js'
import { TIME_ENTRY_LIST } from './query.js'
import {
  MAX_DURATION_SECONDS,
  type CreateTimeEntryInput,
  type EntryListParams,
  type GroupBy,
  type StartTimerInput,
  type TimeEntryView,
  type TimeTotals,
  type UpdateTimeEntryInput,
} from './schema.js'
import { deleteEntryRow, endEntry, getEntry, insertEntry, lockEntry, runningEntryOf, totalsQuery, updateEntryRow, visibleEntriesQuery } from './store.js'

/** An entry with its card, if the caller sees the card's board; 404 otherwise. */
async function visibleEntry(q: Q, actor: Actor, id: string, lock = false): Promise<{ entry: TimeEntriesTable; card: CardsTable }> {
  const entry = await (lock ? lockEntry : getEntry)(q, id)
  if (!entry) throw notFound('time entry')
  return { entry, card: await visibleOnBoard(q, actor, await getCard(q, entry.card_id), 'time entry') }
}

/** A user changes their own entries; owners and admins anyone's. */
function mustChange(actor: Actor, entry: TimeEntriesTable): void {
  if (!isAdmin(actor) && entry.user_id !== actor.user.id) throw forbidden("Only owners and admins change someone else's time entries.")
}

const viewOf = async (deps: Deps, q: Q, id: string): Promise<TimeEntryView> => (await entryViews(q, [(await getEntry(q, id))!], deps.clock.now()))[0]

type Span = Pick<TimeEntriesTable, 'started_at' | 'ended_at' | 'duration_seconds'>

/** A finished entry's times from its start and its end or duration: at least 1 second, at most 7 days (422 otherwise). */
function finishedSpan(startedAt: string, end: { ended_at?: string; duration_seconds?: number | null }): Span {
  const start = Date.parse(startedAt)
  const byEnd = end.ended_at !== undefined
  const endMs = byEnd ? Date.parse(end.ended_at!) : start + end.duration_seconds! * 1000
  const seconds = Math.floor((endMs - start) / 1000)
  const path = byEnd ? 'ended_at' : 'duration_seconds'
  if (seconds < 1) throw invalidField(path, 'Must end at least 1 second after started_at.')
  if (seconds > MAX_DURATION_SECONDS) throw invalidField(path, `An entry lasts at most 7 days (${MAX_DURATION_SECONDS} seconds).`)
  return { started_at: isoAt(start), ended_at: isoAt(endMs), duration_seconds: seconds }
}

async function emitTimer(deps: Deps, tx: Tx, actor: Actor, name: 'timer.started' | 'timer.stopped', entry: TimeEntriesTable, card: CardsTable, now: number) {
  const user = { id: actor.user.id, name: actor.user.name }
  await emitEvent(deps, tx, {
    name,
    boardId: card.board_id,
    data: { ...timerEventData(entry, user, now), ...(await taskEventRefs(tx.q, deps.config, card)) },
    actor,
  })
}

/** Stops a running entry now, with its timer.stopped event; false when it had stopped already (a stop at the same time). */
async function stopIn(deps: Deps, tx: Tx, actor: Actor, entry: TimeEntriesTable, now: number): Promise<boolean> {
  const at = isoAt(now)
  // A timer that ran into an approved period would add time to it: refused like any other write there.
  await refuseLockedTime(tx.q, entry.user_id, entry.started_at, at)
  const stopped = { ...entry, ended_at: at, duration_seconds: secondsOf(entry, now), updated_at: at }
  if (!(await endEntry(tx.q, entry.id, stopped))) return false
  await emitTimer(deps, tx, actor, 'timer.stopped', stopped, (await getCard(tx.q, entry.card_id))!, now)
  return true
}

/** The caller's running timer, if they still see its card's board. */
async function visibleTimer(q: Q, actor: Actor): Promise<TimeEntriesTable | undefined> {
  const running = await runningEntryOf(q, actor.user.id)
  const card = running && (await getCard(q, running.card_id))
  return card && (await seesBoard(q, actor, card.board_id)) ? running : undefined
}

export async function getTimer(deps: Deps, actor: Actor): Promise<TimeEntryView | null> {
  const running = await visibleTimer(deps.db.q, actor)
  return running ? (await entryViews(deps.db.q, [running], deps.clock.now()))[0] : null
}

/** Starts the caller's timer on a card now; a timer of theirs that runs stops first (timer.stopped, then timer.started). */
export const startTimer = (deps: Deps, actor: Actor, input: StartTimerInput): Promise<TimeEntryView> =>
  deps.db.tx(async (tx) => {
    const { q } = tx
    const card = await visibleCard(q, actor, input.card)
    const now = deps.clock.now()
    const at = isoAt(now)
    await refuseLockedTime(q, actor.user.id, at)
    const running = await runningEntryOf(q, actor.user.id)
    if (running) await stopIn(deps, tx, actor, running, now)
    const row: TimeEntriesTable = {
      id: newId(),
      card_id: card.id,
      user_id: actor.user.id,
      started_at: at,
      ended_at: null,
      duration_seconds: null,
      note: input.note ?? '',
      billable: 1,
      created_at: at,
      updated_at: at,
    }
    await insertEntry(q, row)
    await emitTimer(deps, tx, actor, 'timer.started', row, card, now)
    return (await entryViews(q, [row], now))[0]
  })

/**
 * Stops the caller's running timer; 404 when none runs. Also one on a board they no longer see: it is their own time,
 * and a timer nobody can stop would hold up the approval of its period for good.
 */
export const stopTimer = (deps: Deps, actor: Actor): Promise<TimeEntryView> =>
  deps.db.tx(async (tx) => {
    const running = await runningEntryOf(tx.q, actor.user.id)
    if (!running || !(await stopIn(deps, tx, actor, running, deps.clock.now()))) throw notFound('running timer')
    return viewOf(deps, tx.q, running.id)
  })

/** A page of the visible entries, or with `group_by` the totals of their finished ones. */
export function listEntries(deps: Deps, actor: Actor, params: ListParams & EntryListParams) {
  const { q } = deps.db
  const base = visibleEntriesQuery(q, actor.user, params.card)
  if (params.group_by) {
    // Totals are not paged: a sort or expand would do nothing, so a wrong one is refused all the same (400).
    parseSort(params.sort || TIME_ENTRY_LIST.defaultSort, TIME_ENTRY_LIST.sort)
    parseExpand(params.expand, TIME_ENTRY_LIST.expand)
    return entryTotals(deps, actor, applyFilter(base, 'time_entries', params.filter, { anchored: Boolean(params.card) }), params.group_by)
  }
  const now = deps.clock.now()
  return listPage(
    deps.db,
    base,
    TIME_ENTRY_LIST,
    params,
    async (rows: TimeEntriesTable[], expand) => expandEntries(q, await entryViews(q, rows, now), expand),
    {
      anchored: Boolean(params.card),
    },
  )
}

type ExpandedEntry = TimeEntryView & { expand?: { card?: CardView; user?: UserView } }

async function expandEntries(q: Q, views: TimeEntryView[], expand: ReadonlySet<string>): Promise<ExpandedEntry[]> {
  const withCards: ExpandedEntry[] = await expandCard(q, views, expand)
  if (!expand.has('user')) return withCards
  const users = new Map(
    (
      await getUsers(
        q,
        views.map((v) => v.user.id),
      )
    ).map((u) => [u.id, userView(u)]),
  )
  return withCards.map((v) => ({ ...v, expand: { ...v.expand, user: users.get(v.user.id)! } }))
}

export async function getEntryFor(deps: Deps, actor: Actor, id: string, expand?: string) {
  const { q } = deps.db
  const { entry } = await visibleEntry(q, actor, id)
  return (await expandEntries(q, await entryViews(q, [entry], deps.clock.now()), parseExpand(expand, TIME_ENTRY_LIST.expand)))[0]
}

/** The Monday (`YYYY-MM-DD`) of the ISO week of a day. */
const mondayOf = (day: string): string => {
  const ms = Date.parse(day)
  return isoAt(ms - ((new Date(ms).getUTCDay() + 6) % 7) * DAY_MS).slice(0, 10)
}
const cents = (amount: number): number => Math.round(amount * 100) / 100
/** Rows the database may hand to one totals request (a row is a user's day, or a user's day on a card). */
const MAX_TOTAL_ROWS = 20_000

/**
 * Seconds, billable seconds and cost of the finished entries of `base` per card, user, day or ISO week. The database
 * sums per user and day (and card); the rate in force for that user on that day prices the billable part. Costs are for
 * owners and admins only (they manage the rates): anyone else gets `{}`. Days and weeks newest first; cards and users
 * by most time, then key.
 */
async function entryTotals(deps: Deps, actor: Actor, base: ReturnType<typeof visibleEntriesQuery>, groupBy: GroupBy): Promise<TimeTotals> {
  const rows = await deps.db.read(totalsQuery(base, groupBy === 'card').limit(MAX_TOTAL_ROWS + 1))
  if (rows.length > MAX_TOTAL_ROWS)
    throw badRequest(
      `The filter selects time on more than ${MAX_TOTAL_ROWS} user-days${groupBy === 'card' ? ' of cards' : ''}; narrow it (a period, a board, a user).`,
    )
  const rateOn = isAdmin(actor)
    ? await ratesInForce(
        deps.db.q,
        rows.map((r) => r.user_id),
      )
    : () => undefined
  const groups = new Map<string, TimeTotals['items'][number]>()
  for (const r of rows) {
    const key = { card: r.card_id!, user: r.user_id, day: r.day, week: mondayOf(r.day) }[groupBy]
    const g = groups.get(key) ?? groups.set(key, { key, seconds: 0, billable_seconds: 0, cost: {} }).get(key)!
    const billable = Number(r.billable_seconds)
    g.seconds += Number(r.seconds)
    g.billable_seconds += billable
    const rate = rateOn(r.user_id, r.day)
    if (rate && billable > 0) g.cost[rate.currency] = (g.cost[rate.currency] ?? 0) + (billable / 3600) * rate.hourly_rate
  }
  const items = [...groups.values()].map((g) => ({ ...g, cost: Object.fromEntries(Object.entries(g.cost).map(([c, v]) => [c, cents(v)])) }))
  const byTime = groupBy === 'day' || groupBy === 'week'
  items.sort((a, b) => (byTime ? b.key.localeCompare(a.key) : b.seconds - a.seconds || a.key.localeCompare(b.key)))
  return { items }
}

/** The user an owner or admin records time for must exist and see the card's board (422 otherwise); others record their own (403). */
async function mayRecordFor(q: Q, actor: Actor, userId: string, boardId: string): Promise<void> {
  if (!isAdmin(actor)) throw forbidden('Only owners and admins record time for someone else.')
  const user = await getUser(q, userId)
  if (!user || !(await boardsSeenAmong(q, user, [boardId])).has(boardId)) throw invalidField('user', "No such user on the card's board.")
}

export const createEntry = (deps: Deps, actor: Actor, input: CreateTimeEntryInput): Promise<TimeEntryView> =>
  deps.db.tx(async ({ q }) => {
    const card = await visibleCard(q, actor, input.card)
    const userId = input.user ?? actor.user.id
    if (userId !== actor.user.id) await mayRecordFor(q, actor, userId, card.board_id)
    const span = finishedSpan(input.started_at, input)
    await refuseLockedTime(q, userId, span.started_at, span.ended_at!)
    const at = isoAt(deps.clock.now())
    const id = newId()
    await insertEntry(q, {
      id,
      card_id: card.id,
      user_id: userId,
      ...span,
      note: input.note ?? '',
      billable: input.billable === false ? 0 : 1,
      created_at: at,
      updated_at: at,
    })
    return viewOf(deps, q, id)
  })

/**
 * Edits an entry. `started_at` alone moves it (its duration stays); `ended_at` or `duration_seconds` sets its end.
 * A running entry takes a new start (not in the future) but ends only by stopping its timer.
 */
export const updateEntry = (deps: Deps, actor: Actor, id: string, input: UpdateTimeEntryInput): Promise<TimeEntryView> =>
  deps.db.tx(async ({ q }) => {
    const { entry } = await visibleEntry(q, actor, id, true)
    mustChange(actor, entry)
    const now = deps.clock.now()
    await refuseLockedTime(q, entry.user_id, entry.started_at, entry.ended_at ?? isoAt(now))
    const set: Partial<TimeEntriesTable> = {}
    if (input.card !== undefined && input.card !== entry.card_id) set.card_id = (await visibleCard(q, actor, input.card)).id
    if (input.note !== undefined) set.note = input.note
    if (input.billable !== undefined) set.billable = input.billable ? 1 : 0
    const newEnd = input.ended_at !== undefined || input.duration_seconds !== undefined
    if (entry.ended_at === null) {
      if (newEnd)
        throw invalidField(
          input.ended_at !== undefined ? 'ended_at' : 'duration_seconds',
          'A running timer ends when it is stopped (POST /v1/time-entries/timer/stop).',
        )
      if (input.started_at !== undefined) {
        const start = Date.parse(input.started_at)
        if (start > now) throw invalidField('started_at', 'A running timer cannot start in the future.')
        if (now - start > MAX_DURATION_SECONDS * 1000)
          throw invalidField('started_at', `A running timer started at most 7 days (${MAX_DURATION_SECONDS} seconds) ago.`)
        set.started_at = isoAt(start)
      }
    } else if (newEnd || input.started_at !== undefined) {
      Object.assign(set, finishedSpan(input.started_at ?? entry.started_at, newEnd ? input : { duration_seconds: entry.duration_seconds }))
    }
    if (set.started_at !== undefined || set.ended_at !== undefined)
      await refuseLockedTime(q, entry.user_id, set.started_at ?? entry.started_at, set.ended_at ?? entry.ended_at ?? isoAt(now))
    if (Object.keys(set).length) await updateEntryRow(q, id, { ...set, updated_at: isoAt(now) })
    return viewOf(deps, q, id)
  })

/** Deletes an entry (a running one too: its timer is discarded without an event). */
export const deleteEntry = (deps: Deps, actor: Actor, id: string): Promise<void> =>
  deps.db.tx(async ({ q }) => {
    const { entry } = await visibleEntry(q, actor, id, true)
    mustChange(actor, entry)
    await refuseLockedTime(q, entry.user_id, entry.started_at, entry.ended_at ?? isoAt(deps.clock.now()))
    await deleteEntryRow(q, id)
  })

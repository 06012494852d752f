// PostgreSQL through pg and Kysely's PostgresDialect: a pool of connections, so several requests (and several taskd
// processes) work at once. Transactions run at READ COMMITTED (each statement sees what has committed before it) and run
// again when they lose a race; reads get a statement_timeout.
import { AsyncLocalStorage } from 'node:async_hooks'
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import {
  type Compilable,
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  Kysely,
  type KyselyProps,
  PostgresDialect,
  type PostgresDialectConfig,
  type QueryResult,
  sql,
  Transaction,
  type TransactionSettings,
} from 'kysely'
import { HttpError } from '../errors.js'
import {
  type Db,
  GuardedDriver,
  AHEAD,
  HOLD,
  type HoldingConnection,
  gatheringReads,
  type LateSlot,
  type LateTaking,
  inTransaction,
  makeTx,
  type PendingWakes,
  queryTimeout,
  type RowsOf,
  runAfterCommit,
} from './database.js'
import { numberingInserts, storedSchemaVersion } from './dialect.js'
import { hasLateToken, LateNumber } from './late.js'
import { migratePostgres } from './migrate.js'
import { WakeListener } from './postgres-listen.js'
import type { DB } from './types.js'
import { encodeWake, pgChannel, type WakeChannel, Wakes } from './wakes.js'

// int8 (BIGINT, COUNT(*)) comes back as a string by default; every such value here stays below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v))

/**
 * The transaction lost a race and runs again from the start, where its checks see the winner: unique_violation (a
 * concurrent insert of the same idempotency key, prefix or name committed first; the service's own check then answers
 * as it would have), foreign_key_violation (a row it refers to was deleted meanwhile: the check answers 404 or 422),
 * serialization_failure and deadlock_detected. A unique violation that no check precedes fails
 * again every time and ends as it would have anyway.
 */
const RETRYABLE = new Set(['23503', '23505', '40001', '40P01'])
const MAX_ATTEMPTS = 10
const pgCode = (err: unknown): string | undefined => {
  const code = (err as { code?: unknown } | null)?.code
  return typeof code === 'string' ? code : undefined
}
const backoff = (attempt: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.random() * Math.min(50, 2 ** attempt)))

/**
 * A data exception (SQLSTATE class 22: a NUL character in text, '1.5' or 3000000000 for an integer column) comes from a
 * value in the request that PostgreSQL refuses where SQLite stores it: a 400, never a 500.
 */
const dataError = (err: unknown) =>
  pgCode(err)?.startsWith('22') ? new HttpError(400, 'invalid_value', `A value in the request cannot be used: ${(err as Error).message}.`) : err

/** The wake-ups of the transaction being run (Db.tx), which its COMMIT sends. */
const pendingWakes = new AsyncLocalStorage<{ wakes: PendingWakes; processId: string }>()

/** The NOTIFY statements of a transaction's wake-ups (channels are a fixed set of plain names). */
const notifyText = (wakes: PendingWakes, processId: string) =>
  [...wakes].map(([channel, items]) => `NOTIFY ${pgChannel(channel)}, ${quoted(encodeWake(processId, items))}`).join('; ')

/** Any number for pg_advisory_xact_lock, the same in every taskd: commits that wrote events number them one at a time. */
const EVENT_ORDER_LOCK = 0x65766e74 // 'evnt'

/**
 * Commit order for events: a transaction that wrote events takes this lock in its COMMIT's message, and numbers them
 * there after the last commit_seq, in the order they were written. The lock is held until the commit is visible to
 * every reader (PostgreSQL releases a transaction's locks after it marks it committed), and the next holder's
 * statements take a new snapshot after taking it: numbers are handed out in commit order, and a reader that sees
 * commit_seq n sees every smaller one. So the change feed, which pages by commit_seq, never skips an event that commits
 * late. Commits that notify are serialised by PostgreSQL anyway (its notification queue's lock).
 */
const EVENT_ORDER = CompiledQuery.raw(`SELECT pg_advisory_xact_lock(${EVENT_ORDER_LOCK})`)
/**
 * When every event row of the transaction goes in the COMMIT's message, its inserts number them (numberingInserts in
 * src/db/dialect.ts: every event row is inserted by insertEventRows), after the lock and after the message's other
 * statements, so each row is written once and the lock is held for the inserts alone. Rows that went out earlier
 * (before a read, or a savepoint's end) were inserted without a number: this numbers them all, those held to the
 * COMMIT inserted without a number too (the rows without a commit_seq: other transactions' unnumbered rows are not
 * committed, so not seen).
 */
const NUMBER_EVENTS = CompiledQuery.raw(
  'UPDATE events SET commit_seq = numbered.commit_seq FROM (' +
    'SELECT id, (SELECT COALESCE(MAX(commit_seq), 0) FROM events) + row_number() OVER (ORDER BY seq) AS commit_seq FROM events WHERE commit_seq IS NULL' +
    ') numbered WHERE events.id = numbered.id',
)

/** A parameter written into the statement's text as pg would send it, quoted (so PostgreSQL types it from its context, as a parameter). */
function literalOf(value: unknown): string {
  if (value === null || value === undefined) return 'NULL'
  if (Buffer.isBuffer(value) || value instanceof Uint8Array) return `'\\x${Buffer.from(value).toString('hex')}'`
  const text = String((pg as unknown as { utils: { prepareValue(v: unknown): unknown } }).utils.prepareValue(value))
  // A NUL would end the message's text early; PostgreSQL refuses it in a parameter as a data exception, so does this.
  if (text.includes('\u0000')) throw Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), { code: '22021' })
  return quoted(text)
}

/**
 * pg.escapeLiteral's result (quotes and backslashes doubled, ` E'...'` when there is a backslash), made with two
 * replaces instead of its loop that adds a character at a time: a chunk of a cascade writes its events as megabytes of
 * JSON, which that loop turned into millions of small strings for the collector.
 */
export function quoted(text: string): string {
  const body = text.replace(/'/g, "''")
  return text.includes('\\') ? ` E'${body.replace(/\\/g, '\\\\')}'` : `'${body}'`
}

/**
 * A compiled statement with its parameters ($1, $2, ...) written in as literals, for a message of several statements
 * (the simple query protocol has no parameters). $n inside quoted text, quoted names, dollar-quoted text and comments is
 * left as it is.
 */
export function inlined(query: CompiledQuery, literals?: readonly string[]): string {
  const { sql: text, parameters } = query
  if (parameters.length === 0) return text
  let out = ''
  let i = 0
  // Only these characters start what is read specially: the text between them is copied in one piece.
  const special = /['"$/-]/g
  while (i < text.length) {
    special.lastIndex = i
    const next = special.exec(text)
    if (!next) {
      out += text.slice(i)
      break
    }
    if (next.index > i) {
      out += text.slice(i, next.index)
      i = next.index
    }
    const c = text[i]
    let end = i + 1
    if (c === "'" || c === '"') {
      // A quoted literal or name; E'...' escapes with backslashes, doubled quotes end nothing.
      const escapes = c === "'" && /[eE]/.test(text[i - 1] ?? '') && !/[\w$]/.test(text[i - 2] ?? '')
      while (end < text.length) {
        if (escapes && text[end] === '\\') end += 2
        else if (text[end] === c && text[end + 1] === c) end += 2
        else if (text[end] === c) {
          end++
          break
        } else end++
      }
    } else if (c === '-' && text[i + 1] === '-') {
      const nl = text.indexOf('\n', i)
      end = nl < 0 ? text.length : nl
    } else if (c === '/' && text[i + 1] === '*') {
      const close = text.indexOf('*/', i + 2)
      end = close < 0 ? text.length : close + 2
    } else if (c === '$') {
      const n = /^\$(\d+)/.exec(text.slice(i, i + 12))
      const tag = n ? undefined : /^\$([A-Za-z_][A-Za-z_0-9]*)?\$/.exec(text.slice(i, i + 64))
      if (n) {
        const k = Number(n[1]) - 1
        out += literals ? (literals[k] ?? 'NULL') : literalOf(parameters[k])
        i += n[0].length
        continue
      }
      if (tag && !/[\w]/.test(text[i - 1] ?? '')) {
        const close = text.indexOf(tag[0], i + tag[0].length)
        end = close < 0 ? text.length : close + tag[0].length
      }
    }
    out += text.slice(i, end)
    i = end
  }
  return out
}

/**
 * What a held statement is: the transaction's BEGIN (`text`), or a statement (`query`, its parameters already written as
 * literals) whose result nobody reads or that someone awaits.
 */
interface Held {
  text?: string
  query?: CompiledQuery
  literals?: readonly string[]
  waiting?: { resolve: (r: QueryResult<unknown>) => void; reject: (err: unknown) => void }
  /** It takes late values: its row goes to them. */
  taking?: LateTaking
}

/**
 * The errors a value taken late can cause where the value taken at once would not: its setting never set (42704: the
 * taking statement found no row, its board deleted meanwhile) or set empty and then read as a number (class 22: no
 * room at the end of a list near 1e308). The transaction then runs again taking its values at once (src/db/late.ts).
 */
const lateMayCause = (err: unknown): boolean => {
  const code = pgCode(err)
  return code === '42704' || code?.startsWith('22') === true
}

/**
 * A parameter written in as a literal, or, for a stand-in of a value this transaction takes late (src/db/late.ts), the
 * setting that holds it: a number in its place, a text with each token replaced.
 */
function lateLiteral(value: unknown, slots: readonly LateSlot[]): string {
  if (value instanceof LateNumber && slots.includes(value.slot)) return `current_setting('${value.slot.setting}')::${value.slot.type}`
  let out = literalOf(value)
  if (typeof value === 'string' && hasLateToken(value))
    for (const slot of slots) {
      const token = slot.type === 'text' ? slot.token : JSON.stringify(slot.token)
      if (value.includes(token)) out = `replace(${out}, ${quoted(token)}, current_setting('${slot.setting}'))`
    }
  return out
}

/**
 * Prepared statements: PostgreSQL keeps a statement's parse and plan for the session (the server connection) under a
 * name, so a statement the connection has prepared is only bound and run: no parsing and, once PostgreSQL settles on a
 * generic plan (after five runs, when it costs no more than a custom one), no planning. A message of several
 * statements sends `EXECUTE taskd_<tag>_<n>(literals)`, with `PREPARE taskd_<tag>_<n> AS <the statement>` just ahead of it when
 * it is prepared (the second time the connection sends that statement's text); a statement sent alone uses pg's named
 * statements (the extended protocol's Parse once, then Bind). A PREPARE is not undone by a rollback, and a message that fails may or may not
 * have run the PREPAREs it carried: their names are dropped and never used again (the statement gets a new name the next
 * time), so a later message neither runs a name that is missing nor prepares one that exists. pg knows which of its own
 * named statements it parsed. Off behind a transaction pooler, where the next transaction may run on another session.
 * A session's names are its own (`taskd_<tag>_<n>`, the tag random), so a statement never runs under a name another
 * session gave; one that PostgreSQL does not find, finds taken, or can no longer run as prepared (a pooler handed the
 * transaction to another server session, or a migration changed a table) turns them off for the database (Preparing),
 * and the work runs again with its values written in.
 */
class Session {
  readonly tag = randomBytes(4).toString('hex')
  /** Statement text → the name a PREPARE gave it in this session (or in a message still on its way; see flush). */
  readonly prepared = new Map<string, string>()
  /** Statement text → the name of pg's named statement for it (pg parses it on this connection the first time). */
  readonly named = new Map<string, string>()
  /** Names handed out, including those lost with a message that failed: at most MAX_PREPARED a session. */
  made = 0
  /** A name not given before in this session, nor by any other session. */
  newName(): string {
    return `taskd_${this.tag}_${++this.made}`
  }
  /**
   * Texts sent once, written in: a statement is prepared the second time the connection sends it, so texts sent once
   * (the `IN (...)` of an odd number of ids, a cascade's chunk) take no place in the session.
   */
  private readonly seen = new Set<string>()

  /** Whether the statement, not prepared yet, should be now (space left, and the connection has sent it before). */
  prepareNow(query: CompiledQuery): boolean {
    if (this.made >= MAX_PREPARED || !preparable(query)) return false
    if (this.seen.delete(query.sql)) return true
    if (this.seen.size >= MAX_SEEN) this.seen.clear()
    this.seen.add(query.sql)
    return false
  }
}
/**
 * Prepared statements per server connection, at most: past this, statements go with their parameters written in. Each
 * takes some 40 KB of the server connection's memory (its parse tree and plans; measured on the cards table's).
 */
export const MAX_PREPARED = 500
/** Texts a connection remembers having sent once (then forgets them all and starts again). */
const MAX_SEEN = 5000
/** Longer statements (a cascade's multi-row inserts) are not prepared: they vary with the number of rows. */
const MAX_PREPARED_TEXT = 8000
const MAX_PREPARED_PARAMETERS = 256
/** What PREPARE takes: one SELECT, INSERT, UPDATE, DELETE, MERGE or VALUES statement (WITH ... included). */
const preparable = (query: CompiledQuery) =>
  query.sql.length <= MAX_PREPARED_TEXT &&
  query.parameters.length <= MAX_PREPARED_PARAMETERS &&
  /^\s*(select|insert|update|delete|with|values|merge)\b/i.test(query.sql) &&
  !unpreparable.has(query.sql)
/**
 * Statements PostgreSQL refused to prepare (a parameter whose type it cannot infer from the statement, which a literal
 * in its place does not need): written in as literals from then on, in this process.
 */
const unpreparable = new Set<string>()
/**
 * Whether a database's connections prepare statements: on until one of its prepared statements goes missing, is found
 * taken, or no longer fits its tables (LOST_PREPARED), then off for good, with one warning in the log.
 */
export class Preparing {
  on = true
  constructor(private readonly log: (msg: string) => void) {}

  /** Whether the error says prepared statements cannot be kept here; if so they are now off. */
  lost(err: unknown): boolean {
    const code = pgCode(err)
    if (!code || !LOST_PREPARED.has(code) || (code === '0A000' && !/cached plan/.test((err as Error).message))) return false
    if (this.on)
      this.log(
        `warning: a prepared statement was ${code === '0A000' ? 'no longer valid' : 'missing or taken'} (${(err as Error).message}): prepared statements are off for this process; behind a transaction pooler set TASKD_DB_PREPARE=off (README, "Running on PostgreSQL")`,
      )
    this.on = false
    return true
  }
}
/**
 * The errors of a prepared statement that cannot be kept: missing (26000: behind a transaction pooler, another server
 * session), a name taken (42P05), or a plan whose result no longer fits its table (0A000, after a migration).
 */
const LOST_PREPARED = new Set(['26000', '42P05', '0A000'])
/**
 * The errors of a statement's text that PREPARE refuses where the statement with literals in it runs: a parameter of
 * no inferable type (42P18), of two (42P08), or a function or operator it then cannot choose (42725, 42883, 42804).
 */
const UNPREPARABLE = new Set(['42P18', '42P08', '42725', '42883', '42804'])
/** The sessions of the pool's connections (the dialect's connection object is one per pg client). */
const sessions = new WeakMap<DatabaseConnection, Session>()
/** A parameter list (a compiled query's, copied) → the name pg sends it under: read by the pool's query hook. */
const statementNames = new WeakMap<readonly unknown[], string>()
/**
 * Errors after which the transaction or the read runs again, done another way: a message that failed while preparing a
 * statement for the first time with an error of the statement's text (UNPREPARABLE: the statement is then never
 * prepared again), one whose prepared statements were lost (Preparing), or one of a transaction that took values late
 * with an error a late value can cause (lateMayCause: they are then taken at once).
 */
const failures = new WeakSet<object>()
const runAgain = (err: unknown): void => {
  if (typeof err === 'object' && err !== null) failures.add(err)
}
const runsAgain = (err: unknown): boolean => typeof err === 'object' && err !== null && failures.has(err)

/** The statements a message was built from: its parts, and which part answers each statement of the batch. */
interface Message {
  parts: string[]
  /** The index in parts of each statement's own result. */
  at: number[]
  /** Texts prepared for the first time in this message. */
  fresh: string[]
}

const affected = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE'])
const resultOf = (r: pg.QueryResult | undefined): QueryResult<unknown> => ({
  rows: r?.rows ?? [],
  ...(r && affected.has(r.command) ? { numAffectedRows: BigInt(r.rowCount ?? 0) } : {}),
})

/**
 * A connection that sends as few messages as it can inside a transaction: BEGIN waits for the transaction's first
 * statement, statements whose results nobody reads (`later`) wait for the next one, and the queries started together
 * (`together`) wait for the turn of the event loop to end; then they all go as one message of several statements (the
 * simple query protocol, parameters written in as literals: one round trip), and each awaiting query gets its own
 * statement's result. PostgreSQL runs a message's statements in order and stops at the first error, which every query
 * of the message then gets. The COMMIT carries what is still held. Outside a transaction, statements go as they come.
 */
class HoldingPgConnection implements HoldingConnection {
  private held: Held[] = []
  private scheduled = false
  /** BEGIN has been sent (so a rollback must be sent too). */
  private begun = false
  /**
   * The last message sent failed: PostgreSQL has aborted the transaction (only a ROLLBACK TO SAVEPOINT, which then
   * succeeds, brings it back), and a COMMIT would roll it back.
   */
  private aborted = false
  /** The statements of this transaction that took late values (src/db/late.ts). */
  private takings: LateTaking[] = []
  /** Event rows went out before the COMMIT's message (without their commit_seq, which NUMBER_EVENTS then gives). */
  private unnumbered = false
  /** The message of a statement sent ahead (AHEAD), to its error if it failed. */
  private sentAhead: Promise<unknown> | undefined
  private readonly own: Session | undefined
  constructor(
    private readonly inner: DatabaseConnection,
    private readonly preparing: Preparing | undefined,
  ) {
    if (!preparing) return
    let session = sessions.get(inner)
    if (!session) sessions.set(inner, (session = new Session()))
    this.own = session
  }

  /** The server session's prepared statements; undefined when they are off (behind a transaction pooler, or lost). */
  private get session(): Session | undefined {
    return this.preparing?.on ? this.own : undefined
  }

  /** A statement for a message of several: EXECUTE of its prepared name (PREPARE ahead of it when it is prepared), else inlined. */
  private add(message: Message, query: CompiledQuery, literals: readonly string[]): void {
    const s = this.session
    let name = s?.prepared.get(query.sql)
    if (s && name === undefined && s.prepareNow(query)) {
      name = s.newName()
      s.prepared.set(query.sql, name)
      message.fresh.push(query.sql)
      message.parts.push(`PREPARE ${name} AS ${query.sql}`)
    }
    message.at.push(message.parts.length)
    message.parts.push(name === undefined ? inlined(query, literals) : literals.length ? `EXECUTE ${name}(${literals.join(', ')})` : `EXECUTE ${name}`)
  }

  /**
   * After a message failed: the names it prepared may or may not exist now, so they are forgotten (never used again).
   * When PostgreSQL refused a statement's text (UNPREPARABLE: a parameter it cannot type) in a message that prepared
   * statements, those are not prepared again in this process, and the error says the work may run again with them
   * written in (runsAgain).
   */
  private forget(message: Message, err: unknown): void {
    if (!this.own) return
    if (this.preparing?.lost(err)) runAgain(err)
    if (message.fresh.length === 0) return
    for (const text of message.fresh) this.own.prepared.delete(text)
    if (UNPREPARABLE.has(pgCode(err) ?? '')) {
      for (const text of message.fresh) unpreparable.add(text)
      runAgain(err)
    }
  }

  /** Sends a message of several statements (the simple query protocol); its results, one per part. */
  private async sendMessage(message: Message): Promise<QueryResult<unknown>[]> {
    const result = await this.inner.executeQuery(CompiledQuery.raw(message.parts.join(';\n')))
    // Several statements come back as a list of results (pool.on('connect') below); one alone as itself.
    return message.parts.length > 1 ? (result.rows as pg.QueryResult[]).map(resultOf) : [result]
  }

  begin(settings: TransactionSettings): void {
    let text = 'BEGIN'
    if (settings.isolationLevel || settings.accessMode)
      text = `START TRANSACTION${settings.isolationLevel ? ` ISOLATION LEVEL ${settings.isolationLevel.toUpperCase()}` : ''}${settings.accessMode ? ` ${settings.accessMode.toUpperCase()}` : ''}`
    this.held = [{ text }]
    this.begun = false
    this.aborted = false
    this.endLate()
    this.unnumbered = false
    this.sentAhead = undefined
  }

  private endLate(): void {
    this.takings = []
  }

  /** A query's parameters as literals (with the late values of the transaction in place of their stand-ins). */
  private literals(query: CompiledQuery): string[] {
    if (this.takings.length === 0) return query.parameters.map(literalOf)
    const slots = this.takings.flatMap((t) => t.slots)
    return query.parameters.map((v) => lateLiteral(v, slots))
  }

  [HOLD](query: CompiledQuery, taking?: LateTaking): void {
    const literals = this.literals(query)
    if (taking) this.takings.push(taking)
    this.held.push({ query, literals, taking })
  }

  /**
   * pg sends a connection's messages in the order they were given, each after the one before has answered, so the
   * messages after this one need not wait for it here. When it fails, PostgreSQL refuses every statement after it in the
   * transaction (25P02): those messages fail with its error instead (cause).
   */
  [AHEAD](query: CompiledQuery): void {
    this.held.push({ query, literals: this.literals(query) })
    // Its message fails with the error of an earlier one that failed (flush's `ahead`).
    this.sentAhead = this.flush([], { ahead: this.sentAhead ?? true }).then(
      () => undefined,
      (err: unknown) => err,
    )
  }

  /**
   * A message sent after `ahead` (the statement sent ahead then, if any) succeeded: that one ran, or its failure was
   * undone (ROLLBACK TO SAVEPOINT), and the transaction goes on.
   */
  private answered(ahead: Promise<unknown> | undefined): void {
    this.aborted = false
    if (ahead && this.sentAhead === ahead) this.sentAhead = undefined
  }

  /** The error for a message that failed: the statement sent ahead's, when that failed first, else its own. */
  private async cause(err: unknown): Promise<unknown> {
    return (await this.sentAhead) ?? err
  }

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const gathering = gatheringReads()
    // Once values were taken late, every statement goes written in (its stand-ins replaced), never with parameters.
    if (this.held.length === 0 && !gathering && this.takings.length === 0)
      return this.send(query).catch(async (err: unknown) => {
        throw await this.cause(err)
      }) as Promise<QueryResult<R>>
    return new Promise<QueryResult<R>>((resolve, reject) => {
      try {
        this.held.push({ query, literals: this.literals(query), waiting: { resolve: resolve as (r: QueryResult<unknown>) => void, reject } })
      } catch (err) {
        reject(dataError(err))
        return
      }
      // A failed message rejects the queries waiting for it; the flush's own promise has no one else to tell.
      if (!gathering) this.flush().catch(() => undefined)
      else if (!this.scheduled) {
        this.scheduled = true
        setImmediate(() => {
          this.scheduled = false
          this.flush().catch(() => undefined)
        })
      }
    })
  }

  streamQuery<R>(query: CompiledQuery, chunkSize: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize)
  }

  /** One statement as it is, with its parameters: under a name of pg's when it can be prepared. */
  private async send(query: CompiledQuery): Promise<QueryResult<unknown>> {
    const s = this.session
    let sent = query
    if (s && query.parameters.length > 0) {
      let name = s.named.get(query.sql)
      if (name === undefined && s.prepareNow(query)) s.named.set(query.sql, (name = s.newName()))
      if (name !== undefined) {
        const parameters = [...query.parameters]
        statementNames.set(parameters, name)
        sent = { ...query, parameters }
      }
    }
    const sentAfter = this.sentAhead
    try {
      const result = await this.inner.executeQuery(sent)
      this.answered(sentAfter)
      return result
    } catch (err) {
      this.aborted = true
      if (this.own && this.preparing?.lost(err)) {
        // Outside a transaction the statement simply runs again, unnamed; inside one, the transaction does (Db.tx).
        if (!this.begun && sent !== query) return this.send(query)
        runAgain(err)
      }
      throw dataError(err)
    }
  }

  /**
   * Sends what is held (and `tail`, statements of its own) as one message. `ahead`: the message of AHEAD (true), or
   * of one sent after an earlier AHEAD (that one's message, whose error a failure here takes, as PostgreSQL refused
   * this one for it). `after`: the message is made, then sent once this has settled, not if it comes to an error.
   */
  async flush(
    tail: readonly (string | Held)[] = [],
    { ahead = false, after }: { ahead?: boolean | Promise<unknown>; after?: Promise<unknown> } = {},
  ): Promise<void> {
    // The error of a failed message: the statement sent ahead before it failed first (PostgreSQL refused the rest).
    const cause = async (err: unknown) => (ahead === false ? this.cause(err) : ahead === true ? err : ((await ahead) ?? err))
    const batch = this.held
    this.held = []
    if (batch.length === 0 && tail.length === 0) return
    if (batch.some((h) => h.query && numberingInserts.has(h.query))) this.unnumbered = true
    if (batch[0]?.text?.startsWith('BEGIN') || batch[0]?.text?.startsWith('START TRANSACTION')) this.begun = true
    const [only] = batch
    if (batch.length === 1 && tail.length === 0 && only?.query && this.takings.length === 0) {
      // One query alone: as it is, with its parameters.
      const result = await this.send(only.query).catch(async (err: unknown) => {
        const failed = await cause(err)
        only.waiting?.reject(failed)
        throw failed
      })
      only.waiting?.resolve(result)
      return
    }
    const message: Message = { parts: [], at: [], fresh: [] }
    for (const h of batch) {
      if (h.query) this.add(message, h.query, h.literals ?? [])
      else {
        message.at.push(message.parts.length)
        message.parts.push(h.text ?? '')
      }
    }
    for (const t of tail) {
      if (typeof t === 'string') message.parts.push(t)
      else if (t.query) this.add(message, t.query, t.literals ?? [])
    }
    let results: QueryResult<unknown>[]
    try {
      const failedBefore = await after
      if (failedBefore) throw failedBefore
      const sentAfter = this.sentAhead
      results = await this.sendMessage(message)
      this.answered(sentAfter)
    } catch (err) {
      this.aborted = true
      this.forget(message, err)
      const failed = dataError(await cause(err))
      // Only an error PostgreSQL answered, of the kinds a value taken late can cause, runs the transaction again: the
      // message then stopped at that statement, before its COMMIT. A lost connection may have lost the answer to a
      // COMMIT that ran, and a second run would make the card twice.
      if (this.takings.length > 0 && lateMayCause(err)) {
        for (const t of this.takings) t.late.off = true
        runAgain(failed)
      }
      for (const h of batch) h.waiting?.reject(failed)
      throw failed
    }
    // A message of one statement here (held, or the COMMIT alone) has no one waiting for it: a query alone went by
    // the branch above.
    batch.forEach((h, i) => {
      const result = results[message.at[i] ?? -1] ?? { rows: [] }
      h.taking?.got((result.rows[0] ?? {}) as Record<string, unknown>)
      h.waiting?.resolve(result)
    })
  }

  /**
   * The COMMIT, with what is still held before it and `before` (NOTIFY) just ahead of it; with `numbering`, the events'
   * numbering (EVENT_ORDER) ahead of those: the event rows still held go last, numbered by their inserts, unless rows of
   * the transaction went out earlier without a number (then all are numbered by NUMBER_EVENTS, in the order written).
   * Nothing when the transaction ran no statement. A transaction whose last statement failed (an error the caller
   * caught) is refused here: PostgreSQL would answer its COMMIT with a ROLLBACK, and the caller would take its changes
   * for written.
   */
  async commit(numbering: boolean, before: readonly string[]): Promise<void> {
    if (!this.begun && this.held.length === 1 && !numbering && before.length === 0) {
      this.held = []
      return
    }
    if (this.aborted) throw (await this.sentAhead) ?? new Error('Transaction was rolled back instead of committed: one of its statements failed')
    // A COMMIT after a failed statement would be answered with a ROLLBACK: it goes once the statement sent ahead ran.
    const after = this.sentAhead
    if (!numbering) await this.flush([...before, 'COMMIT'], { after })
    else {
      const numbered = (h: Held) => (h.query && !this.unnumbered ? numberingInserts.get(h.query) : undefined)
      const events = this.held.filter((h) => numbered(h))
      this.held = this.held.filter((h) => !numbered(h))
      await this.flush(
        [
          { query: EVENT_ORDER, literals: [] },
          ...(this.unnumbered ? [{ query: NUMBER_EVENTS, literals: [] }] : events.map((h) => ({ query: numbered(h), literals: h.literals }))),
          ...before,
          'COMMIT',
        ],
        { after },
      )
    }
    this.endLate()
  }

  /**
   * Statements and a query as one message outside a transaction block: PostgreSQL runs a message of several statements
   * as one implicit transaction (`SET LOCAL` and `SET TRANSACTION` hold for it). The query's result.
   */
  async alone(statements: readonly string[], query: CompiledQuery): Promise<QueryResult<unknown>> {
    let literals: string[]
    try {
      literals = query.parameters.map(literalOf)
    } catch (err) {
      throw dataError(err)
    }
    for (let attempt = 1; ; attempt++) {
      const message: Message = { parts: [...statements], at: [], fresh: [] }
      this.add(message, query, literals)
      try {
        const results = await this.sendMessage(message)
        this.aborted = false
        return results[results.length - 1] ?? { rows: [] }
      } catch (err) {
        this.aborted = true
        this.forget(message, err)
        // A statement PostgreSQL would not prepare goes again with its parameters written in.
        if (attempt === 1 && runsAgain(err)) continue
        throw dataError(err)
      }
    }
  }

  async rollback(): Promise<void> {
    // Queries still waiting for a message (started beside the one that failed) end with the transaction.
    for (const h of this.held) h.waiting?.reject(new Error('the transaction was rolled back'))
    this.held = []
    this.endLate()
    if (this.begun) await this.send(CompiledQuery.raw('ROLLBACK'))
    this.begun = false
  }
}

/**
 * A transaction that woke channels commits with its NOTIFY statements in the same message as the COMMIT (one simple
 * query, no round trip of their own); PostgreSQL delivers them at commit, never for a transaction that rolls back. A
 * transaction that failed refuses the NOTIFY, so the COMMIT after it never runs and the transaction is rolled back.
 * One that wrote events (every such transaction wakes the events channel) numbers them in that message too.
 */
class WakingDriver extends GuardedDriver {
  override beginTransaction = async (c: DatabaseConnection, settings: TransactionSettings): Promise<void> => (c as HoldingPgConnection).begin(settings)
  override commitTransaction = async (c: DatabaseConnection): Promise<void> => {
    const pending = pendingWakes.getStore()
    const notifying = pending && pending.wakes.size > 0
    await (c as HoldingPgConnection).commit(!!pending?.wakes.has('events'), notifying ? [notifyText(pending.wakes, pending.processId)] : [])
  }
  override rollbackTransaction = async (c: DatabaseConnection): Promise<void> => (c as HoldingPgConnection).rollback()
}

class GuardedPostgresDialect extends PostgresDialect {
  constructor(
    config: PostgresDialectConfig,
    private readonly preparing: Preparing | undefined,
  ) {
    super(config)
  }
  override createDriver(): Driver {
    return new WakingDriver(super.createDriver(), (conn) => new HoldingPgConnection(conn, this.preparing))
  }
}

/**
 * Called with the text of every message a pool's connection sends (a round trip to the server): tests count the
 * statements of a request with it.
 */
export const messageObservers = new Set<(text: string) => void>()

export interface PostgresOptions {
  url: string
  queryTimeoutMs: number
  /** Connections this process keeps open at most. */
  poolSize: number
  /** A direct connection for what needs a session (the LISTEN connection), when `url` goes through a pooler; default `url`. */
  directUrl?: string
  /**
   * Prepared statements (kept by each server connection for its session): on by default, off when `directUrl` names
   * another address than `url` (a transaction pooler, where a session's statements are not there in the next
   * transaction).
   */
  prepare?: boolean
  log?: (msg: string, err?: unknown) => void
}

/** The schema version a PostgreSQL database is at (0 before taskd first started on it), read without migrating it. */
export async function postgresSchemaVersion(url: string): Promise<number> {
  const q = new Kysely<DB>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 1, application_name: 'taskd' }) }) })
  try {
    const { rows } = await sql<{ found: string | null }>`SELECT to_regclass('schema_version') AS found`.execute(q)
    return rows[0]?.found ? await storedSchemaVersion(q) : 0
  } finally {
    await q.destroy()
  }
}

/** Connects, and brings the schema up to date (once, when several processes start together). */
export async function openPostgres(opts: PostgresOptions): Promise<Db> {
  const pool = new pg.Pool({ connectionString: opts.url, max: opts.poolSize, application_name: 'taskd' })
  // A connection that breaks while idle (the server restarted) is dropped by the pool; without a listener it would crash us.
  pool.on('error', (err) => (opts.log ?? console.error)('a PostgreSQL connection failed while idle', err))
  // A message of several statements (HoldingPgConnection.flush) comes back from pg as a list of results, which Kysely
  // would drop: it is handed on as the rows of one result.
  pool.on('connect', (client) => {
    // A connection that breaks while checked out (the server restarted or ended the session, the network went) emits
    // 'error' too, and the pool listens only while it is idle: without this the process would end. The query that was
    // running fails with the error, and its transaction with it; the pool then drops the connection.
    client.on('error', (err) => (opts.log ?? console.error)('a PostgreSQL connection failed', err))
    const query = client.query.bind(client) as (...args: unknown[]) => unknown
    ;(client as { query: unknown }).query = (...args: unknown[]) => {
      for (const see of messageObservers) see(typeof args[0] === 'string' ? args[0] : String((args[0] as { text?: unknown } | null)?.text ?? ''))
      // A statement sent alone under a name (HoldingPgConnection.send): pg parses it the first time on this connection.
      const name = Array.isArray(args[1]) ? statementNames.get(args[1]) : undefined
      const r = name === undefined ? query(...args) : query({ name, text: args[0], values: args[1] })
      return r instanceof Promise ? r.then((res: unknown) => (Array.isArray(res) ? { command: 'MULTI', rowCount: null, rows: res } : res)) : r
    }
  })
  const prepare = opts.prepare ?? !(opts.directUrl && opts.directUrl !== opts.url)
  const dialect = new GuardedPostgresDialect({ pool }, prepare ? new Preparing(opts.log ?? console.error) : undefined)
  const q = new Kysely<DB>({ dialect })
  const spareDriver = dialect.createDriver()
  /**
   * The transaction's Kysely, on its one connection without Kysely's queue in front of it (which sends a statement only
   * after the one before has answered), so that reads started together travel together (HoldingPgConnection).
   */
  const unqueued = async (trx: Transaction<DB>): Promise<Transaction<DB>> => {
    const connection = await trx.getExecutor().provideConnection(async (c) => c)
    const executor = trx.getExecutor().withConnectionProvider({ provideConnection: (consumer) => consumer(connection) })
    return new Transaction<DB>({ config: { dialect }, driver: spareDriver, executor, dialect } as KyselyProps)
  }
  try {
    await migratePostgres(q)
    // Text sorts and lower() folds as on SQLite only under the C collation; elsewhere taskd works, but orders differ.
    const { rows } = await sql<{ datcollate: string; datctype: string }>`
      SELECT datcollate, datctype FROM pg_database WHERE datname = current_database()`.execute(q)
    const locale = rows[0] ?? { datcollate: 'C', datctype: 'C' }
    if (![locale.datcollate, locale.datctype].every((l) => l === 'C' || l === 'POSIX')) {
      ;(opts.log ?? console.error)(
        `warning: the database's collation and ctype are ${locale.datcollate} and ${locale.datctype}, not C: names sort and fold case in that locale's way, not as on SQLite (README, "Running on PostgreSQL")`,
      )
    }
  } catch (err) {
    await q.destroy()
    throw err
  }
  const log = opts.log ?? console.error
  // The LISTEN connection opens when the first subscriber (a worker of `serve`) asks for wake-ups.
  const listener: { current?: WakeListener } = {}
  const wakes: Wakes = new Wakes((): Promise<void> => {
    listener.current = new WakeListener(opts.directUrl ?? opts.url, wakes, log)
    listener.current.start()
    return listener.current.ready
  })
  // A read is one message: read-only, with its deadline, in the implicit transaction of a message of several statements
  // (no BEGIN and COMMIT of its own).
  const readSettings = ['SET TRANSACTION READ ONLY', `SET LOCAL statement_timeout = ${Math.floor(opts.queryTimeoutMs)}`]
  const read = async <R>(query: Compilable<R>): Promise<R[]> => {
    const compiled = query.compile()
    try {
      return (await q.getExecutor().provideConnection((c) => (c as HoldingPgConnection).alone(readSettings, compiled))).rows as R[]
    } catch (err) {
      // query_canceled: the statement ran past statement_timeout.
      if (pgCode(err) === '57014') throw queryTimeout(opts.queryTimeoutMs)
      throw err
    }
  }
  return {
    dialect: 'postgres',
    q,
    tx: async (fn) => {
      for (let attempt = 1; ; attempt++) {
        const after: (() => void)[] = []
        const pending = { wakes: new Map() as PendingWakes, processId: wakes.processId }
        try {
          const result = await pendingWakes.run(pending, () =>
            q.transaction().execute(async (trx) => {
              const t = await unqueued(trx)
              return inTransaction.run(true, () => fn(makeTx(t, after, pending.wakes)))
            }),
          )
          runAfterCommit(after)
          return result
        } catch (err) {
          if (attempt >= MAX_ATTEMPTS || !(RETRYABLE.has(pgCode(err) ?? '') || runsAgain(err))) throw err
          await backoff(attempt)
        }
      }
    },
    read,
    readAll: async <const T extends readonly Compilable<unknown>[]>(queries: T): Promise<RowsOf<T>> =>
      (await Promise.all(queries.map((query) => read(query)))) as RowsOf<T>,
    backup: () => Promise.reject(new Error('taskd backup copies the SQLite file; on PostgreSQL, use pg_dump (see docs/postgres.md)')),
    wakes,
    wake: async (channel: WakeChannel, what: string) => {
      await sql`SELECT pg_notify(${pgChannel(channel)}, ${encodeWake(wakes.processId, new Set([what]))})`.execute(q)
    },
    close: async () => {
      await listener.current?.close()
      await q.destroy()
    },
  }
}

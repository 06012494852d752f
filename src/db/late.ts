// Values a transaction takes under a lock as late as it can: on PostgreSQL, in the message that commits it.
//
// A card create takes its board's next number (locking the board's row) and the end of its list (locking the list's
// row), and other creates on the board wait for those locks until it commits. Taken in their own round trip, the locks
// stay held while this process's event loop, busy with other requests, gets round to the answer and builds the rest of
// the transaction. Taken late, the statements that take them are held back (see `later`) and travel with the
// transaction's next message, normally its COMMIT: the locks are then held only while PostgreSQL runs that message.
// Until then the code sees stand-ins: a token in place of the value. The statement that takes the value keeps it in a
// transaction-local setting (set_config), and every statement of the transaction after it that carries a stand-in
// gets the setting in its place (the connection writes `current_setting(...)` into the statement for a number, and
// `replace(...)` around a text that contains a token). After the commit, `settle` puts the values into what the
// transaction returned. SQLite (one writer) and statements outside a transaction take the value at once, as before.
import { randomBytes } from 'node:crypto'
import type { CompiledQuery } from 'kysely'
import { HOLD, type HoldingConnection, type LateSlot, type Q } from './database.js'

/** Tokens of this process: a random mark no request can guess, then the name of the setting the value is kept in. */
const MARK = `\u2060late${randomBytes(8).toString('hex')}:`

/** A number taken late: stands in for the number in a row or a view; JSON.stringify writes its token. */
export class LateNumber {
  constructor(readonly slot: LateSlot) {}
  toJSON(): string {
    return this.slot.token
  }
  /** Arithmetic, a comparison or a template on it would go wrong without a word: it refuses them. */
  [Symbol.toPrimitive](): never {
    throw new Error(`the late value ${this.slot.setting} is not known before the commit`)
  }
}

/** The slot whose setting is named `setting` (its token is made from the name: the same for every transaction). */
export const lateSlot = (setting: string, type: LateSlot['type']): LateSlot => ({ token: `${MARK}${setting}\u2060`, setting, type })

/** Whether a text holds a token of this process (a fast check before looking for each slot's). */
export const hasLateToken = (text: string): boolean => text.includes(MARK)

/**
 * The late values of one transaction (one card create): made before it, handed to the stores that take values, and
 * asked to `settle` what the transaction returned after it committed.
 */
export class Late {
  /**
   * Set by the connection when a message of the transaction failed once values were taken late (a lock's row gone, a
   * position that leaves no room): the transaction runs again (Db.tx) with every value taken at once, which answers as
   * it always has.
   */
  off = false
  private readonly values = new Map<LateSlot, string>()
  private readonly slots: LateSlot[] = []

  /**
   * Holds `query` (one row, a column per slot, each the value as set_config returned it) to go with the transaction's
   * next message, and says so; false where values are taken at once (SQLite, outside a transaction, or after a late
   * attempt failed): the caller then runs its own statement.
   */
  async take(q: Q, query: CompiledQuery, slots: Record<string, LateSlot>): Promise<boolean> {
    if (this.off || !q.isTransaction) return false
    return q.getExecutor().provideConnection(async (c) => {
      if (!(HOLD in c)) return false
      const taken = Object.entries(slots)
      for (const [, slot] of taken) if (this.slots.includes(slot)) throw new Error(`late value ${slot.setting} taken twice in one transaction`)
      this.slots.push(...taken.map(([, slot]) => slot))
      ;(c as HoldingConnection)[HOLD](query, {
        late: this,
        slots: taken.map(([, slot]) => slot),
        got: (row) => {
          for (const [column, slot] of taken) this.values.set(slot, String(row[column]))
        },
      })
      return true
    })
  }

  /** What the transaction returned, with every stand-in replaced by its value (the same object when none was taken). */
  settle<T>(result: T): T {
    if (this.slots.length === 0) return result
    let json = JSON.stringify(result)
    for (const slot of this.slots) {
      // A value never taken belongs to a run of the transaction that failed; what the run that committed returned
      // carries none of its tokens.
      const value = this.values.get(slot)
      if (value === undefined) continue
      // A text's token stands inside a JSON string (its value escaped as one); a number's is the whole JSON string.
      json = slot.type === 'text' ? json.replaceAll(slot.token, JSON.stringify(value).slice(1, -1)) : json.replaceAll(JSON.stringify(slot.token), value)
    }
    return JSON.parse(json) as T
  }
}

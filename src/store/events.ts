// Event rows: the history that webhook samples read and deliveries are made from.
import { sql as rawSql } from 'kysely'
import type { Sql } from '../db/sql.js'
import { fixedQuery, qb } from '../db/sql.js'

const insert = fixedQuery((id: string, name: string, boardId: string | null, data: string, at: string) =>
  qb.insertInto('events').values({ id, name, board_id: boardId, data, created_at: at, seq: rawSql<number>`(SELECT COALESCE(MAX(seq), 0) + 1 FROM events)` }))

/** Appends an event; seq orders the events. */
export const insertEvent = (sql: Sql, id: string, name: string, boardId: string | null, data: string, at: string) =>
  sql.run(insert(id, name, boardId, data, at))

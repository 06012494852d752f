// Questions in API shape (a page's askers in one query).
import type { Q } from '../../db/database.js'
import type { AgentQuestionsTable } from '../../db/types.js'
import { getUsers } from '../users/published.js'
import type { QuestionView } from './schema.js'
import { fromJsonColumn } from '../../db/json.js'
import { UserRef } from '../../http/schemas.js'

export async function questionViews(q: Q, rows: readonly AgentQuestionsTable[]): Promise<QuestionView[]> {
  const askers = new Map((await getUsers(q, [...new Set(rows.map((r) => r.asked_by))])).map((u) => [u.id, u]))
  return rows.map((r) => ({
    id: r.id,
    run: r.run_id,
    card: r.card_id,
    question: r.question,
    status: r.status,
    answer: r.answer,
    asked_by: { id: r.asked_by, name: askers.get(r.asked_by)?.name ?? '' },
    answered_by: r.answered_by === null ? null : fromJsonColumn(UserRef, r.answered_by),
    created: r.created_at,
    answered_at: r.answered_at,
  }))
}

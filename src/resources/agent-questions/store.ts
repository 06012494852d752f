// Question queries.
import type { Q } from '../../db/database.js'
import { forUpdate } from '../../db/dialect.js'
import type { AgentQuestionsTable } from '../../db/types.js'

export const insertQuestion = (q: Q, row: AgentQuestionsTable) => q.insertInto('agent_questions').values(row).execute()
export const lockQuestion = (q: Q, runId: string, id: string) =>
  forUpdate(q, q.selectFrom('agent_questions').selectAll().where('id', '=', id).where('run_id', '=', runId)).executeTakeFirst()
export const updateQuestionRow = (q: Q, id: string, set: Partial<AgentQuestionsTable>) =>
  q.updateTable('agent_questions').set(set).where('id', '=', id).execute()
export const openQuestionCount = async (q: Q, runId: string): Promise<number> =>
  Number(
    (
      await q
        .selectFrom('agent_questions')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('run_id', '=', runId)
        .where('status', '=', 'open')
        .executeTakeFirstOrThrow()
    ).n,
  )
export const questionsQuery = (q: Q, runId: string) => q.selectFrom('agent_questions').where('agent_questions.run_id', '=', runId)

/** The people (not agents) who are members of a board: a question reaches their inboxes. */
export const humanMembersOf = async (q: Q, boardId: string): Promise<string[]> =>
  (
    await q
      .selectFrom('board_members')
      .innerJoin('users', 'users.id', 'board_members.user_id')
      .select('users.id')
      .where('board_members.board_id', '=', boardId)
      .where('users.kind', '=', 'human')
      .execute()
  ).map((r) => r.id)

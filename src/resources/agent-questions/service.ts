// Questions: the run's agent asks (the run waits: needs_input), a person answers or dismisses (the run goes on once no
// question is open). Asking reaches the inboxes of the kickoff's requester and the board's human members.
import type { Actor } from '../../access/roles.js'
import { isoAt } from '../../clock.js'
import type { Tx } from '../../db/database.js'
import type { AgentQuestionsTable, AgentRunsTable } from '../../db/types.js'
import type { Deps } from '../../deps.js'
import { conflict, forbidden, notFound } from '../../errors.js'
import { emitEvent } from '../../events/emit.js'
import { newId } from '../../ids.js'
import { listPage, type ListParams } from '../../query/list-page.js'
import { getKickoff } from '../agent-kickoffs/published.js'
import { moveRun, recordActivity } from '../agent-runs/lifecycle.js'
import { FINISHED } from '../agent-runs/schema.js'
import { assertPerson, runInSight } from '../agent-runs/service.js'
import { updateRunRow } from '../agent-runs/published.js'
import { taskEventRefs } from '../cards/present.js'
import { getCard } from '../cards/published.js'
import { notify } from '../inbox/service.js'
import { questionViews } from './present.js'
import { QUESTION_LIST } from './query.js'
import type { QuestionView } from './schema.js'
import { humanMembersOf, insertQuestion, lockQuestion, openQuestionCount, questionsQuery, updateQuestionRow } from './store.js'

const refsOf = async (deps: Deps, tx: Tx, run: AgentRunsTable) => taskEventRefs(tx.q, deps.config, (await getCard(tx.q, run.card_id))!)

export async function listQuestions(deps: Deps, actor: Actor, runId: string, params: ListParams) {
  const { q } = deps.db
  await runInSight(q, actor, runId)
  return listPage(deps.db, questionsQuery(q, runId), QUESTION_LIST, params, (rows: AgentQuestionsTable[]) => questionViews(q, rows), { anchored: true })
}

export const askQuestion = (deps: Deps, actor: Actor, runId: string, question: string): Promise<QuestionView> =>
  deps.db.tx(async (tx) => {
    const run = await runInSight(tx.q, actor, runId, true)
    if (actor.run || actor.user.id !== run.agent_id) throw forbidden("Only the run's agent asks questions on it.")
    if (FINISHED.includes(run.status)) throw conflict(`The run has ended (${run.status}).`)
    const at = isoAt(deps.clock.now())
    const row: AgentQuestionsTable = {
      id: newId(),
      run_id: run.id,
      card_id: run.card_id,
      board_id: run.board_id,
      question,
      status: 'open',
      answer: null,
      asked_by: actor.user.id,
      answered_by: null,
      created_at: at,
      answered_at: null,
    }
    await insertQuestion(tx.q, row)
    await emitEvent(deps, tx, {
      name: 'question.asked',
      boardId: run.board_id,
      data: { id: row.id, question, run: run.id, asked_by: { id: actor.user.id, name: actor.user.name }, ...(await refsOf(deps, tx, run)) },
      actor,
    })
    await moveRun(deps, tx, actor, run, {
      status: 'needs_input',
      set: { last_activity_at: at },
      activity: { type: 'question', text: question },
      event: 'agent.needs_input',
      fields: { question, question_id: row.id },
    })
    const requester = (await getKickoff(tx.q, run.kickoff_id))?.requester_id
    const users = [...new Set([...(requester ? [requester] : []), ...(await humanMembersOf(tx.q, run.board_id))])]
    await notify(deps, tx, actor, { kind: 'question', users, card: { id: run.card_id, board_id: run.board_id }, question: row.id })
    return (await questionViews(tx.q, [row]))[0]
  })

/** A person answers (`answer`) or dismisses (null) an open question; the run goes on once none is open. */
export const settleQuestion = (deps: Deps, actor: Actor, runId: string, id: string, answer: string | null): Promise<QuestionView> =>
  deps.db.tx(async (tx) => {
    const run = await runInSight(tx.q, actor, runId, true)
    assertPerson(actor, answer === null ? 'dismiss questions' : 'answer questions')
    const row = await lockQuestion(tx.q, runId, id)
    if (!row) throw notFound('question')
    if (row.status !== 'open') throw conflict(`The question was already ${row.status}.`)
    const at = isoAt(deps.clock.now())
    const by = { id: actor.user.id, name: actor.user.name }
    const set = { status: answer === null ? ('dismissed' as const) : ('answered' as const), answer, answered_by: JSON.stringify(by), answered_at: at }
    await updateQuestionRow(tx.q, id, set)
    await emitEvent(deps, tx, {
      name: 'question.answered',
      boardId: run.board_id,
      data: { id, question: row.question, answer, dismissed: answer === null, run: run.id, answered_by: by, ...(await refsOf(deps, tx, run)) },
      actor,
    })
    await recordActivity(deps, tx, actor, run.id, set.status, answer)
    if (run.status === 'needs_input' && (await openQuestionCount(tx.q, run.id)) === 0)
      await updateRunRow(tx.q, run.id, { status: 'running', last_activity_at: at })
    return (await questionViews(tx.q, [{ ...row, ...set }]))[0]
  })

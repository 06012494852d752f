// /v1/agent-runs/{id}/questions: what an agent asks on its run, and the answers people give.
import { defineRoute } from '../../http/route.js'
import { envelope, idParam } from '../../http/schemas.js'
import { listQuery, pageSchema } from '../../query/list-page.js'
import { QUESTION_LIST } from './query.js'
import { AnswerQuestionBody, AskQuestionBody, questionParams, QuestionSchema } from './schema.js'
import { askQuestion, listQuestions, settleQuestion } from './service.js'

const Question = envelope('question', QuestionSchema)

export const questionRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/agent-runs/{id}/questions',
    operationId: 'listAgentRunQuestions',
    tag: 'Agents',
    access: 'read',
    summary: "A run's questions, oldest first",
    params: idParam,
    query: listQuery(QUESTION_LIST),
    responses: { 200: { description: 'A page of questions', schema: pageSchema(QuestionSchema, 'QuestionPage') } },
    handler: async ({ deps, actor, params, query }) => ({ status: 200, body: await listQuestions(deps, actor, params.id, query) }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/agent-runs/{id}/questions',
    operationId: 'askAgentRunQuestion',
    tag: 'Agents',
    access: 'write',
    summary: "The run's agent asks a question: the run waits (needs_input) and the board's people are told in their inbox",
    params: idParam,
    body: AskQuestionBody,
    errors: [403, 409],
    responses: { 201: { description: 'The question', schema: Question } },
    handler: async ({ deps, actor, params, body }) => ({ status: 201, body: { question: await askQuestion(deps, actor, params.id, body.question) } }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/agent-runs/{id}/questions/{question}/answer',
    operationId: 'answerAgentRunQuestion',
    tag: 'Agents',
    access: 'write',
    summary: 'Answer an open question (people only); the run goes on once no question is open',
    params: questionParams,
    body: AnswerQuestionBody,
    errors: [403, 409],
    responses: { 200: { description: 'The question', schema: Question } },
    handler: async ({ deps, actor, params, body }) => ({
      status: 200,
      body: { question: await settleQuestion(deps, actor, params.id, params.question, body.answer) },
    }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/agent-runs/{id}/questions/{question}/dismiss',
    operationId: 'dismissAgentRunQuestion',
    tag: 'Agents',
    access: 'write',
    summary: 'Dismiss an open question (people only; counts as answered)',
    params: questionParams,
    errors: [403, 409],
    responses: { 200: { description: 'The question', schema: Question } },
    handler: async ({ deps, actor, params }) => ({ status: 200, body: { question: await settleQuestion(deps, actor, params.id, params.question, null) } }),
  }),
]

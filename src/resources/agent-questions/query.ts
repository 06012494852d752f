// Questions: filter fields and sort.
import { field, type FilterResource } from '../../filter/index.js'
import type { ListSpec } from '../../query/list-page.js'

export const QUESTION_FILTER: FilterResource = {
  table: 'agent_questions',
  fields: {
    id: field.id('id'),
    status: field.oneOf('status', ['open', 'answered', 'dismissed']),
    question: field.text('question'),
    created: field.date('created_at'),
    answered_at: field.date('answered_at'),
  },
}

export const QUESTION_LIST: ListSpec = {
  resource: 'agent_questions',
  table: 'agent_questions',
  defaultSort: 'created',
  expand: [],
  sort: { created: 'agent_questions.created_at', answered_at: 'agent_questions.answered_at' },
}

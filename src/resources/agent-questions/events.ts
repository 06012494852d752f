// Events of questions an agent asks on its run.
import { z } from 'zod'
import { ACTOR, BOARD, CARD_REF, described, ref, str, defineEvents, type PayloadsOf } from '../../events/fields.js'

export const QUESTION_EVENTS = defineEvents({
  'question.asked': {
    summary: 'An agent asked a question on a task and awaits an answer.',
    data: z.object({
      id: str('Question id'),
      question: str('Question text'),
      run: str('The agent run it was asked on'),
      asked_by: ref('agent who asked'),
      card: CARD_REF,
      board: BOARD,
      actor: ACTOR,
    }),
  },
  'question.answered': {
    summary: 'A question was answered or dismissed.',
    data: z.object({
      id: str('Question id'),
      question: str('Question text'),
      answer: described(z.string().nullable(), 'Answer text; null when dismissed'),
      dismissed: described(z.boolean(), 'True when the question was dismissed (which also counts as answered)'),
      run: str('The agent run it was asked on'),
      answered_by: ref('person who answered'),
      card: CARD_REF,
      board: BOARD,
      actor: ACTOR,
    }),
  },
})

declare module '../../events/fields.js' {
  interface EventPayloads extends PayloadsOf<typeof QUESTION_EVENTS> {}
}

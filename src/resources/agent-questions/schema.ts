// Questions an agent asks on its run, answered or dismissed by a person.
import { z } from 'zod'
import { agrees } from '../../db/agrees.js'
import type { AgentQuestionsTable } from '../../db/types.js'
import { orNull, UserRef } from '../../http/schemas.js'

export const QuestionStatus = z.enum(['open', 'answered', 'dismissed'])
agrees<z.infer<typeof QuestionStatus>, AgentQuestionsTable['status']>() // the CHECK of schema.sql, or the build fails

export const QuestionSchema = z
  .strictObject({
    id: z.string(),
    run: z.string(),
    card: z.string(),
    question: z.string(),
    status: QuestionStatus,
    answer: z.string().nullable(),
    asked_by: UserRef,
    answered_by: orNull(UserRef),
    created: z.string(),
    answered_at: z.string().nullable(),
  })
  .meta({ id: 'Question' })
export type QuestionView = z.infer<typeof QuestionSchema>

const text = (max: number) =>
  z
    .string()
    .max(max)
    .refine((s) => s.trim().length > 0, 'Must not be empty.')
export const AskQuestionBody = z.strictObject({ question: text(10_000) }).meta({ id: 'AskQuestionBody' })
export const AnswerQuestionBody = z.strictObject({ answer: text(20_000) }).meta({ id: 'AnswerQuestionBody' })

export const questionParams = z.object({ id: z.string().min(1), question: z.string().min(1) })

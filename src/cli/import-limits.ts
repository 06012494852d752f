// What `taskd import` checks before it writes: the text a person could only have written through the API keeps the
// API's limits (a crafted export with a 300,000-character comment is refused, as POST /v1/comments would refuse it).
import type { z } from 'zod'
import { CreateCardBody } from '../resources/cards/schema.js'
import { CreateCommentBody } from '../resources/comments/schema.js'
import { CreateNoteBody } from '../resources/notes/schema.js'

/** Column → the body field of the route that writes it, per table. */
const LIMITS: Record<string, Record<string, z.ZodType>> = {
  cards: { title: CreateCardBody.shape.title, description: CreateCardBody.shape.description },
  comments: { body: CreateCommentBody.shape.body },
  notes: { title: CreateNoteBody.shape.title, body: CreateNoteBody.shape.body },
}
/** Problems named before the import gives up. */
const SHOWN = 10

/** Where the export breaks the API's limits (`comments[3].body: At most 100,000 characters.`), the first few. */
export function limitProblems(data: Record<string, unknown>): string[] {
  const problems: string[] = []
  for (const [table, columns] of Object.entries(LIMITS)) {
    const rows = data[table]
    if (!Array.isArray(rows)) continue
    rows.forEach((row: Record<string, unknown>, i) => {
      for (const [column, schema] of Object.entries(columns)) {
        const value = row?.[column]
        if (value === null || value === undefined || problems.length >= SHOWN) continue
        const checked = schema.safeParse(value)
        if (!checked.success) problems.push(`${table}[${i}].${column}: ${checked.error.issues.map((x) => x.message).join('; ')}`)
      }
    })
  }
  return problems
}

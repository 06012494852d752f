// Events of pipelines, with the payload their `data` carries. Each goes to the board of the cards it concerns (one
// event per board), or workspace-wide (board null) when it concerns none.
import { z } from 'zod'
import { ACTOR, BOARD, described, ref, str, defineEvents, type PayloadsOf } from '../../events/fields.js'

const pipelineData = z.object({
  id: str('Pipeline id'),
  name: str('The workflow or job name'),
  status: described(z.string(), 'queued, running, success, failure or canceled'),
  previous_status: described(z.string().nullable(), 'The status before this change (null when it was just created)'),
  branch: described(z.string().nullable(), 'The branch it ran on'),
  commit: described(z.string().nullable(), 'The head commit SHA'),
  url: described(z.string().nullable(), 'The run’s page on the CI'),
  repository: ref('repository (its full name)'),
  cards: described(z.array(z.string()), 'The cards (record ids) of this board it concerns'),
  board: described(BOARD.nullable(), '{ id, name } of the board, or null when it concerns no card'),
  actor: ACTOR,
})

export const PIPELINE_EVENTS = defineEvents({
  'pipeline.created': { summary: 'A CI run was reported (by a code host’s hook or POST /v1/pipelines).', data: pipelineData },
  'pipeline.updated': { summary: 'A CI run changed: its status (previous_status says from what), name, times, or the cards it concerns.', data: pipelineData },
})

declare module '../../events/fields.js' {
  interface EventPayloads extends PayloadsOf<typeof PIPELINE_EVENTS> {}
}

// Events of git resources, with the payload their `data` carries. Each goes to the board of the cards concerned.
import { z } from 'zod'
import { ACTOR, BOARD, CARD_REF, described, ref, str, defineEvents, type PayloadsOf } from '../../events/fields.js'

const resource = {
  id: str('Git resource id'),
  kind: described(z.string(), 'branch, commit or pull_request'),
  ref: str('The branch name, the commit SHA or the pull request number'),
  title: str('The branch name, the first line of the commit message or the pull request title'),
  url: str('Its page on the code host'),
  state: described(z.string(), 'branch: active or deleted; commit: pushed; pull_request: open, closed or merged'),
  author: described(z.string().nullable(), 'The host user name of who pushed, committed or opened it'),
  repository: ref('repository (its full name)'),
}

export const GIT_EVENTS = defineEvents({
  'git_resource.linked': {
    summary: 'A branch, commit or pull request mentioning a card’s key was linked to the card (one event per card).',
    data: z.object({ ...resource, card: CARD_REF, board: BOARD, actor: ACTOR }),
  },
  'git_resource.updated': {
    summary: 'A linked pull request was merged, closed, re-opened or retitled, or a linked branch deleted (one event per board of its cards).',
    data: z.object({
      ...resource,
      changes: described(z.array(z.string()), 'What changed: state, title'),
      cards: described(z.array(z.string()), 'The linked cards (record ids) of this board'),
      board: BOARD,
      actor: ACTOR,
    }),
  },
})

declare module '../../events/fields.js' {
  interface EventPayloads extends PayloadsOf<typeof GIT_EVENTS> {}
}

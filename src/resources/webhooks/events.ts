// The one event the webhooks family emits itself: `webhook.test`, sent only by the send-test action.
import { z } from 'zod'
import { ref, str, defineEvents, type PayloadsOf } from '../../events/fields.js'

export const WEBHOOK_EVENTS = defineEvents({
  'webhook.test': {
    summary: 'A test delivery sent by the send-test action; never emitted by real activity.',
    data: z.object({
      webhook: ref('subscription being tested'),
      message: str('Fixed text saying this is a test'),
      triggered_by: ref('user who sent the test'),
    }),
  },
})

declare module '../../events/fields.js' {
  interface EventPayloads extends PayloadsOf<typeof WEBHOOK_EVENTS> {}
}

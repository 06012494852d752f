// Response shapes of /v1/webhooks for the OpenAPI document.
import { z } from 'zod'

export const WebhookSchema = z.object({
  id: z.string(), name: z.string(), url: z.string(), method: z.enum(['POST', 'PUT', 'PATCH']),
  events: z.array(z.string()), boards: z.array(z.string()), headers: z.record(z.string(), z.string()), active: z.boolean(),
  has_secret: z.boolean(),
  auth: z.object({ type: z.enum(['none', 'bearer', 'basic', 'header']), header_name: z.string().optional() }),
  created_by: z.object({ id: z.string(), name: z.string() }),
  last_delivery: z.object({ status_code: z.number().int().nullable(), outcome: z.enum(['delivered', 'failed', 'retrying', 'dropped']), at: z.string() }).nullable(),
  created: z.string(), updated: z.string(),
}).meta({ id: 'Webhook' })

export const LogSchema = z.object({
  id: z.string(), delivery_id: z.string(), event: z.string(), attempt: z.number().int(), status_code: z.number().int().nullable(),
  outcome: z.enum(['delivered', 'failed', 'retrying', 'dropped']), error: z.string().optional(), duration_ms: z.number().int(), at: z.string(),
  request_body: z.string().meta({ description: 'The exact body sent' }),
  response_excerpt: z.string().meta({ description: 'First 1,024 bytes of the answer' }),
}).meta({ id: 'WebhookLog' })

export const SampleSchema = z.object({
  id: z.string(), event: z.string(), timestamp: z.string(), data: z.record(z.string(), z.unknown()),
}).meta({ id: 'WebhookSample' })

export const EventCatalogSchema = z.object({
  items: z.array(z.object({
    event: z.string(), family: z.string(), summary: z.string(),
    fields: z.array(z.object({ name: z.string(), type: z.string(), description: z.string() })),
  })),
}).meta({ id: 'EventCatalog' })

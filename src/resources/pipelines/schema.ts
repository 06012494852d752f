// Pipelines: CI runs of a git repository (from the hosts' CI hooks, or reported by any CI with POST /v1/pipelines),
// linked to the cards their branch or head commit mention.
import { z } from 'zod'
import { agrees } from '../../db/agrees.js'
import type { PipelinesTable } from '../../db/types.js'
import { UserRef } from '../../http/schemas.js'

export const PIPELINE_STATUSES = ['queued', 'running', 'success', 'failure', 'canceled'] as const
export const PipelineStatus = z.enum(PIPELINE_STATUSES).meta({ description: '`queued`, `running`, `success`, `failure` or `canceled`.' })
export type PipelineStatus = z.infer<typeof PipelineStatus>
agrees<PipelineStatus, PipelinesTable['status']>()
/** The statuses a run ends in: reaching one sets finished_at (unless given). */
export const FINAL_STATUSES: readonly PipelineStatus[] = ['success', 'failure', 'canceled']

export const PipelineSchema = z
  .strictObject({
    id: z.string(),
    repository: z.string().meta({ description: 'The git repository (record id).' }),
    provider_id: z
      .string()
      .meta({ description: 'The CI’s own id of the run, unique per repository (GitHub and Gitea: the workflow run id; GitLab: the pipeline id).' }),
    name: z.string(),
    branch: z.string().nullable(),
    commit: z.string().nullable().meta({ description: 'The head commit’s SHA.' }),
    status: PipelineStatus,
    url: z.string().nullable(),
    started_at: z.string().nullable(),
    finished_at: z.string().nullable(),
    cards: z.array(z.string()).meta({ description: 'The cards (record ids) its branch or head commit mention, those the caller sees.' }),
    created_by: UserRef.nullable().meta({ description: 'Who reported it through the API; null for a code host’s hook.' }),
    created: z.string(),
    updated: z.string(),
  })
  .meta({ id: 'Pipeline' })
export type PipelineView = z.infer<typeof PipelineSchema>

const instant = z.iso
  .datetime({ offset: true })
  .refine((v) => {
    const year = new Date(v).getUTCFullYear()
    return year >= 1 && year <= 9999
  }, 'Must fall between the years 0001 and 9999 in UTC.')
  .nullable()
  .meta({ description: 'ISO 8601 date-time, e.g. `2026-11-21T09:00:00Z`, or null.' })
const url = z
  .string()
  .max(2000)
  .regex(/^https?:\/\/[^\s#]+$/, 'Must be an http:// or https:// URL without a # fragment.')
  .nullable()
  .meta({ description: 'The run’s page on the CI, or null.' })
const name = z.string().trim().min(1).max(200).meta({ description: 'The workflow or job name, 1 to 200 characters.' })
const startedAt = instant.meta({ description: 'When it started; set to now when it turns `running` without one.' })
const finishedAt = instant.meta({ description: 'When it ended; set to now when it turns `success`, `failure` or `canceled` without one.' })

export const CreatePipelineBody = z
  .strictObject({
    repository: z.string().trim().min(1).max(300).meta({
      description:
        'The git repository: its record id, or its full name (`owner/name`, any case) when exactly one connection has a repository of that name (422 naming `repository` when none or several do).',
    }),
    provider_id: z.string().trim().min(1).max(200).optional().meta({
      description: 'The CI’s own id of the run, unique per repository (409 when the repository has a pipeline with it). Defaults to the new record id.',
    }),
    name,
    branch: z.string().trim().min(1).max(255).nullable().optional().meta({ description: 'The branch it ran on: a card key in its name links the card.' }),
    commit: z
      .string()
      .regex(/^[0-9a-fA-F]{7,64}$/, 'Must be a commit SHA (7 to 64 hex digits).')
      .nullable()
      .optional()
      .meta({ description: 'The head commit’s SHA: the cards a pushed commit with it links are linked.' }),
    status: PipelineStatus,
    url: url.optional(),
    started_at: startedAt.optional(),
    finished_at: finishedAt.optional(),
  })
  .meta({
    id: 'CreatePipelineBody',
    examples: [
      {
        repository: 'acme/api',
        provider_id: 'jenkins-4711',
        name: 'Jenkins: build',
        branch: 'feature/LCH-12-login',
        commit: '9fceb02d0ae598e95dc970b74767f19372d61af8',
        status: 'running',
        url: 'https://ci.example.com/job/api/4711/',
      },
    ],
  })
export type CreatePipelineInput = z.infer<typeof CreatePipelineBody>

export const UpdatePipelineBody = z
  .strictObject({
    name: name.optional(),
    status: PipelineStatus.optional(),
    url: url.optional(),
    started_at: startedAt.optional(),
    finished_at: finishedAt.optional(),
  })
  .meta({ id: 'UpdatePipelineBody', examples: [{ status: 'failure' }] })
export type UpdatePipelineInput = z.infer<typeof UpdatePipelineBody>

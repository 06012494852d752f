// Where and how a kickoff is delivered: the powers it may use now, the auto_start call to a runner (V2-signed, with the
// Standard Webhooks headers beside), and the service AI turn (one chat-completions call to TASKD_AI_URL).
import type { Dispatcher } from 'undici'
import { z } from 'zod'
import type { Config } from '../../config.js'
import type { Q } from '../../db/database.js'
import type { AgentKickoffsTable, AgentProfilesTable, AgentWorkflowStepsTable } from '../../db/types.js'
import type { Deps } from '../../deps.js'
import { VERSION } from '../../version.js'
import { redactEchoes } from '../../delivery/redact.js'
import { sendWebhook } from '../../delivery/send.js'
import { signedCallHeaders } from '../../delivery/signing.js'
import { stepsOfWorkflow } from '../agent-workflows/published.js'
import { openSigningKeys } from '../signing-secrets/service.js'
import { type AgentPower, AgentPowers, POWERS } from '../../access/roles.js'
import { fromJsonColumn, StringList } from '../../db/json.js'
import { CHAIN_HEADER, chainHeaderValue } from '../../delivery/chain.js'
import { parseJson } from '../../json-depth.js'

/** The part of an OpenAI-style chat completion an AI turn reads: the first choice's message text. */
const ChatCompletion = z.object({ choices: z.array(z.object({ message: z.object({ content: z.string() }) })) })

/** Where auto_start calls: the workflow step's launch URL, else the agent's wake URL, with the matching signing secret. */
export interface Target {
  url: string | null
  secretId: string | null
  step: AgentWorkflowStepsTable | undefined
}

export async function targetOf(
  q: Q,
  kickoff: Pick<AgentKickoffsTable, 'workflow_id' | 'step' | 'agent_id'>,
  profile: AgentProfilesTable | undefined,
): Promise<Target> {
  // The step as it is now, if it still names this agent (the steps may have been replaced since the kickoff).
  const step = kickoff.workflow_id && kickoff.step ? (await stepsOfWorkflow(q, kickoff.workflow_id)).find((s) => s.idx === kickoff.step) : undefined
  const own = step?.agent_id === kickoff.agent_id ? step : undefined
  // A URL goes with its own secret only: a step's launch URL never gets the agent's secret.
  if (own?.launch_url) return { url: own.launch_url, secretId: own.signing_secret_id, step: own }
  return { url: profile?.wake_url ?? null, secretId: profile?.signing_secret_id ?? null, step: own }
}

/**
 * The powers a kickoff may use, in delivery order: those asked for (all the agent's when none were), among the agent's,
 * auto_start only with a URL to call, service_ai only when TASKD_AI_URL is set.
 */
export function usablePowers(asked: readonly AgentPower[], profile: AgentProfilesTable | undefined, target: Target, config: Config): AgentPower[] {
  const has = new Set<AgentPower>(profile ? fromJsonColumn(AgentPowers, profile.powers) : [])
  const wanted = asked.length ? new Set(asked) : has
  return POWERS.filter((p) => wanted.has(p) && has.has(p) && (p !== 'auto_start' || target.url !== null) && (p !== 'service_ai' || config.aiUrl !== undefined))
}

/** POSTs the kickoff to the runner; undefined when a 2xx answered, else why not. */
export async function callRunner(
  deps: Deps,
  target: Target,
  kickoff: Pick<AgentKickoffsTable, 'id' | 'chain'>,
  payload: unknown,
  dispatcher?: Dispatcher,
): Promise<string | undefined> {
  const body = JSON.stringify(payload)
  const headers: Record<string, string> = { 'Content-Type': 'application/json', 'User-Agent': `taskd-agents/${VERSION}`, 'X-Kickoff-Id': kickoff.id }
  // A runner URL that is one of taskd's own incoming endpoints starts none of the automations that led to the kickoff.
  const chained = chainHeaderValue(deps.secrets, fromJsonColumn(StringList, kickoff.chain), deps.clock.now())
  if (chained) headers[CHAIN_HEADER] = chained
  if (target.secretId) {
    const keys = (await openSigningKeys(deps, [target.secretId])).get(target.secretId)
    if (keys === undefined) return `The signing secret ${target.secretId} no longer exists.`
    // The kickoff's id names the message: the same when it is sent again, so a runner can take it once.
    Object.assign(headers, signedCallHeaders(keys, kickoff.id, body, deps.clock.now() / 1000))
  }
  const sent = await sendWebhook({
    url: target.url!,
    method: 'POST',
    headers,
    body,
    timeoutMs: deps.config.webhookTimeoutMs,
    allowPrivate: deps.config.allowPrivateTargets,
    dispatcher,
  })
  if (sent.outcome === 'ok') return undefined
  return sent.statusCode === null ? `auto_start: ${sent.error ?? sent.outcome}` : `auto_start: the runner answered ${sent.statusCode}.`
}

export class AiTurnFailed extends Error {}

/** One chat-completions turn (TASKD_AI_URL, TASKD_AI_KEY, TASKD_AI_MODEL); the reply's text. */
export async function aiTurn(deps: Deps, messages: { role: 'system' | 'user'; content: string }[], dispatcher?: Dispatcher): Promise<string> {
  const { config } = deps
  const headers: Record<string, string> = { 'Content-Type': 'application/json', 'User-Agent': `taskd-agents/${VERSION}` }
  if (config.aiKey) headers.Authorization = `Bearer ${config.aiKey}`
  const sent = await sendWebhook({
    url: `${config.aiUrl!.replace(/\/+$/, '')}/chat/completions`,
    method: 'POST',
    headers,
    body: JSON.stringify({ model: config.aiModel, messages }),
    timeoutMs: config.aiTimeoutMs,
    // The operator set this address (often a local model server): the private-target rule is for users' URLs.
    allowPrivate: true,
    dispatcher,
    keepBytes: 1_048_576,
  })
  if (sent.outcome !== 'ok')
    throw new AiTurnFailed(`service_ai: ${sent.statusCode === null ? (sent.error ?? sent.outcome) : `the AI endpoint answered ${sent.statusCode}`}`)
  let reply: string | undefined
  try {
    reply = ChatCompletion.safeParse(parseJson(sent.responseExcerpt)).data?.choices[0]?.message.content
  } catch {
    reply = undefined // not JSON, or nested too deep
  }
  if (reply === undefined || reply.trim() === '') throw new AiTurnFailed('service_ai: the AI endpoint gave no reply text.')
  // The reply becomes a comment every board member reads: an echo of the endpoint's key is taken out, as from any answer.
  return config.aiKey ? redactEchoes(reply, [config.aiKey], Infinity) : reply
}

// Agent workflows: owners, admins and members of the board manage them with a write token; read tokens see them.
// Each step's agent must be an agent on the board; naming a signing secret is for owners and admins (as automations).
import { type Actor, creatorId, isAdmin } from '../../access/roles.js'
import { boardInSight, visibleBoard } from '../../access/visibility.js'
import { isoAt } from '../../clock.js'
import type { Q } from '../../db/database.js'
import type { AgentWorkflowStepsTable, AgentWorkflowsTable } from '../../db/types.js'
import type { Deps } from '../../deps.js'
import { type ErrorDetail, forbidden, notFound, unprocessable } from '../../errors.js'
import { newId } from '../../ids.js'
import { listPage, type ListParams } from '../../query/list-page.js'
import { getBoardMember } from '../boards/store.js'
import { getSigningSecrets } from '../signing-secrets/store.js'
import { getUser } from '../users/store.js'
import { urlProblems } from '../webhooks/rules.js'
import { workflowViews } from './present.js'
import { WORKFLOW_LIST } from './query.js'
import type { AgentWorkflowView, CreateWorkflowInput, UpdateWorkflowInput, WorkflowStepInput } from './schema.js'
import { clearDefault, deleteWorkflowRow, getWorkflow, insertWorkflow, setWorkflowSteps, updateWorkflowRow, visibleWorkflowsQuery } from './store.js'

/** For the kickoff dispatcher: a workflow by id. */
export { getWorkflow } from './store.js'

const invalid = (details: ErrorDetail[]) => unprocessable('The workflow is not valid.', details)

async function visibleWorkflow(q: Q, actor: Actor, id: string, inTrashToo = false): Promise<AgentWorkflowsTable> {
  const row = await getWorkflow(q, id)
  if (!row) throw notFound('agent workflow')
  await (inTrashToo ? boardInSight : visibleBoard)(q, actor, row.board_id, 'agent workflow')
  return row
}

const view = async (q: Q, row: AgentWorkflowsTable): Promise<AgentWorkflowView> => (await workflowViews(q, [row]))[0]

/** The launch URLs against the outgoing URL rules, checked before the transaction (a name may need resolving). */
async function urlDetails(deps: Deps, steps: readonly WorkflowStepInput[] | undefined): Promise<ErrorDetail[]> {
  const details: ErrorDetail[] = []
  for (const [i, s] of (steps ?? []).entries())
    if (s.launch_url) details.push(...(await urlProblems(s.launch_url, deps.config.allowPrivateTargets)).map((d) => ({ ...d, path: `steps.${i}.launch_url` })))
  return details
}

/** The step rows to store, after checking each agent (an agent on the board) and signing secret; 422 or 403 otherwise. */
async function stepRows(q: Q, actor: Actor, boardId: string, workflowId: string, steps: readonly WorkflowStepInput[], urls: ErrorDetail[]) {
  const details = [...urls]
  for (const [i, s] of steps.entries()) {
    const agent = await getUser(q, s.agent)
    if (!agent || agent.kind !== 'agent') details.push({ path: `steps.${i}.agent`, message: 'No such agent.' })
    else if (!(await getBoardMember(q, boardId, agent.id))) details.push({ path: `steps.${i}.agent`, message: `${agent.name} is not a member of the board.` })
    if (s.signing_secret && (await getSigningSecrets(q, [s.signing_secret])).length === 0)
      details.push({ path: `steps.${i}.signing_secret`, message: 'No such signing secret.' })
  }
  if (details.length) throw invalid(details)
  if (steps.some((s) => s.signing_secret) && !isAdmin(actor)) throw forbidden('Only workspace owners and admins may use signing secrets in workflow steps.')
  return steps.map((s, i): AgentWorkflowStepsTable => ({
    workflow_id: workflowId,
    idx: i + 1,
    name: s.name,
    agent_id: s.agent,
    launch_url: s.launch_url ?? null,
    signing_secret_id: s.signing_secret ?? null,
    instructions: s.instructions ?? null,
  }))
}

export function listWorkflows(deps: Deps, actor: Actor, params: ListParams & { board?: string }) {
  const { q } = deps.db
  return listPage(deps.db, visibleWorkflowsQuery(q, actor.user, params.board), WORKFLOW_LIST, params, (rows: AgentWorkflowsTable[]) => workflowViews(q, rows))
}

export async function getWorkflowFor(deps: Deps, actor: Actor, id: string): Promise<AgentWorkflowView> {
  const { q } = deps.db
  return view(q, await visibleWorkflow(q, actor, id))
}

export async function createWorkflow(deps: Deps, actor: Actor, input: CreateWorkflowInput): Promise<AgentWorkflowView> {
  const urls = await urlDetails(deps, input.steps)
  return deps.db.tx(async ({ q }) => {
    await visibleBoard(q, actor, input.board)
    const at = isoAt(deps.clock.now())
    const row: AgentWorkflowsTable = {
      id: newId(),
      board_id: input.board,
      name: input.name,
      is_default: input.default ? 1 : 0,
      created_by: creatorId(actor),
      created_at: at,
      updated_at: at,
    }
    const steps = await stepRows(q, actor, input.board, row.id, input.steps, urls)
    if (input.default) await clearDefault(q, input.board)
    await insertWorkflow(q, row)
    await setWorkflowSteps(q, row.id, steps)
    return view(q, row)
  })
}

export async function updateWorkflow(deps: Deps, actor: Actor, id: string, input: UpdateWorkflowInput): Promise<AgentWorkflowView> {
  const urls = await urlDetails(deps, input.steps)
  return deps.db.tx(async ({ q }) => {
    const row = await visibleWorkflow(q, actor, id)
    const steps = input.steps && (await stepRows(q, actor, row.board_id, id, input.steps, urls))
    if (input.default && !row.is_default) await clearDefault(q, row.board_id)
    const set = {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.default !== undefined ? { is_default: input.default ? 1 : 0 } : {}),
      updated_at: isoAt(deps.clock.now()),
    }
    await updateWorkflowRow(q, id, set)
    if (steps) await setWorkflowSteps(q, id, steps)
    return view(q, { ...row, ...set })
  })
}

/** Deleting a workflow leaves its kickoffs and runs (they forget it); also on a board in the trash. */
export const deleteWorkflow = (deps: Deps, actor: Actor, id: string): Promise<void> =>
  deps.db.tx(async ({ q }) => {
    await visibleWorkflow(q, actor, id, true)
    await deleteWorkflowRow(q, id)
  })

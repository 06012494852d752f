// The module list: every resource family, in mounting order. Loading it registers the families' filter field maps,
// event payloads and exported tables, so the filter language, the event catalog and export/import know them before
// the first request. Adding a family is its folder plus one line here (and its tables in the central schema).
import { registerEvents } from '../events/names.js'
import { registerFilterResource } from '../filter/index.js'
import { actions } from './actions/index.js'
import { registerExported } from './actions/store.js'
import { agentKickoffs } from './agent-kickoffs/index.js'
import { agentQuestions } from './agent-questions/index.js'
import { agentRuns } from './agent-runs/index.js'
import { agentWorkflows } from './agent-workflows/index.js'
import { audit } from './audit/index.js'
import { billingRates } from './billing-rates/index.js'
import { automations } from './automations/index.js'
import { boards } from './boards/index.js'
import { boardStatuses } from './board-statuses/index.js'
import { cards } from './cards/index.js'
import { changeFeed } from './change-feed/index.js'
import { cardTemplates } from './card-templates/index.js'
import { checklists } from './checklists/index.js'
import { comments } from './comments/index.js'
import { dependencies } from './dependencies/index.js'
import { entityLinks } from './entity-links/index.js'
import { folders } from './folders/index.js'
import { forms } from './forms/index.js'
import { git } from './git/index.js'
import { groups } from './groups/index.js'
import { files } from './files/index.js'
import { inbox } from './inbox/index.js'
import { incoming } from './incoming/index.js'
import { lists } from './lists/index.js'
import { milestones } from './milestones/index.js'
import type { Tool } from '../mcp/tools.js'
import type { ResourceModule } from './module.js'
import { noteFolders } from './note-folders/index.js'
import { notePublications } from './note-publications/index.js'
import { notes } from './notes/index.js'
import { savedFilters } from './saved-filters/index.js'
import { pipelines } from './pipelines/index.js'
import { searchModule } from './search/index.js'
import { sessions } from './sessions/index.js'
import { withSessionCookie } from './sessions/authenticate.js'
import { signingSecrets } from './signing-secrets/index.js'
import { tags } from './tags/index.js'
import { templates } from './templates/index.js'
import { timeEntries } from './time-entries/index.js'
import { timesheetApprovals } from './timesheet-approvals/index.js'
import { tokens } from './tokens/index.js'
import { authenticate } from './tokens/authenticate.js'
import { users } from './users/index.js'
import { webhooks } from './webhooks/index.js'
import { xattr } from './xattr/index.js'

// incoming before webhooks: /v1/webhooks/incoming must match before /v1/webhooks/{id}. Tables a row points to come
// from an earlier family: groups after users; folders before the boards in them; board statuses before the lists bound
// to them; milestones before the cards that name them. The change feed first: a thousand clients waiting on it ask
// again the moment they are answered, and Express tries routes in mounting order (about 50 µs past all the others).
export const MODULES: readonly ResourceModule[] = [
  changeFeed,
  users,
  groups,
  tokens,
  sessions,
  folders,
  boards,
  boardStatuses,
  lists,
  milestones,
  cards,
  tags,
  actions,
  incoming,
  webhooks,
  signingSecrets,
  automations,
  comments,
  inbox,
  checklists,
  timeEntries,
  timesheetApprovals,
  billingRates,
  noteFolders,
  notes,
  notePublications,
  dependencies,
  entityLinks,
  files,
  agentWorkflows,
  agentKickoffs,
  agentRuns,
  agentQuestions,
  searchModule,
  xattr,
  cardTemplates,
  templates,
  savedFilters,
  forms,
  audit,
  git,
  pipelines,
]

for (const m of MODULES) {
  for (const [name, resource] of Object.entries(m.filters ?? {})) registerFilterResource(name, resource)
  if (m.events) registerEvents(m.events)
  registerExported(m.exports ?? [])
}

/**
 * The families whose MCP tools come first, in the order tools/list has always shown them (clients may keep it); a
 * family not named here follows in module order and needs no entry to work.
 */
const TOOL_ORDER = ['users', 'boards', 'lists', 'cards', 'comments', 'notes', 'time-entries', 'agent-kickoffs', 'search']
const toolRank = (family: string) => (TOOL_ORDER.includes(family) ? TOOL_ORDER.indexOf(family) : TOOL_ORDER.length)

/** Every family's MCP tools. */
export const MCP_TOOLS: readonly Tool[] = [...MODULES].sort((a, b) => toolRank(a.name) - toolRank(b.name)).flatMap((m) => m.mcpTools ?? [])

export { authenticate }
/** The API's routes take a Bearer token or a browser's session cookie (MCP takes tokens only: `authenticate`). */
export const authenticateApi = withSessionCookie(authenticate)

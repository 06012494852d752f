// Generated from schema.sql by scripts/db-types.ts (npm run db:types). Do not edit by hand.

export interface WorkspaceTable {
  id: string
  name: string
  created_at: string
}

export interface UsersTable {
  id: string
  email: string
  name: string
  role: 'owner' | 'admin' | 'member'
  kind: 'human' | 'agent'
  created_at: string
}

export interface TokensTable {
  id: string
  user_id: string
  name: string
  permission: 'read' | 'write' | 'full'
  hash: string
  prefix: string
  expires_at: string | null
  last_used_at: string | null
  created_at: string
  rate_window_start: number
  rate_count: number
}

export interface UserGroupsTable {
  id: string
  name: string
  kind: 'group' | 'team'
  created_by: string | null
  created_at: string
  updated_at: string
}

export interface UserGroupMembersTable {
  group_id: string
  user_id: string
}

export interface FoldersTable {
  id: string
  name: string
  parent_id: string | null
  position: number
  created_by: string | null
  created_at: string
  updated_at: string
}

export interface BoardsTable {
  id: string
  name: string
  description: string
  key_prefix: string
  next_key: number
  created_by: string | null
  created_at: string
  updated_at: string
  trashed_at: string | null
  trashed_by: string | null
  purge_at: string | null
  folder_id: string | null
}

export interface KeyPrefixesTable {
  prefix: string
  board_id: string
  created_at: string
  last_num: number | null
}

export interface BoardMembersTable {
  board_id: string
  user_id: string
  created_at: string
  role: 'admin' | 'member'
}

export interface BoardStatusesTable {
  id: string
  board_id: string
  name: string
  category: 'backlog' | 'unstarted' | 'started' | 'completed' | 'canceled'
  color: string | null
  position: number
  created_at: string
  updated_at: string
}

export interface MilestonesTable {
  id: string
  board_id: string
  name: string
  description: string
  due_date: string | null
  state: 'open' | 'closed'
  created_by: string | null
  created_at: string
  updated_at: string
}

export interface ListsTable {
  id: string
  board_id: string
  name: string
  position: number
  category: 'backlog' | 'unstarted' | 'started' | 'completed' | 'canceled'
  created_at: string
  updated_at: string
  status_id: string | null
}

export interface CardsTable {
  id: string
  board_id: string
  list_id: string
  key_num: number
  key: string
  title: string
  description: string
  position: number
  priority: number
  start_date: string | null
  due_date: string | null
  completed: number
  completed_at: string | null
  archived: number
  trashed: number
  idempotency_key: string | null
  created_by: string | null
  created_at: string
  updated_at: string
  milestone_id: string | null
  parent_id: string | null
}

export interface CardAssigneesTable {
  card_id: string
  user_id: string
}

export interface CardWatchersTable {
  card_id: string
  user_id: string
}

export interface TagsTable {
  id: string
  board_id: string
  name: string
  color: string | null
  created_at: string
  updated_at: string
}

export interface CardTagsTable {
  card_id: string
  tag_id: string
}

export interface EventsTable {
  id: string
  seq: number
  name: string
  board_id: string | null
  data: string
  created_at: string
  audience_id: string | null
  commit_seq: number | null
}

export interface WebhooksTable {
  id: string
  name: string
  url: string
  method: 'POST' | 'PUT' | 'PATCH'
  events: string
  secret_enc: string | null
  auth_type: 'none' | 'bearer' | 'basic' | 'header'
  auth_enc: string | null
  auth_header_name: string | null
  headers: string
  active: number
  all_boards: number
  created_by: string
  last_status_code: number | null
  last_outcome: string | null
  last_at: string | null
  created_at: string
  updated_at: string
  paused_reason: string | null
  previous_secret_enc: string | null
  previous_secret_until: string | null
  failures: number
  failing_since: string | null
}

export interface WebhookBoardsTable {
  webhook_id: string
  board_id: string
}

export interface OutboxTable {
  id: string
  webhook_id: string
  event_id: string | null
  board_id: string | null
  event: string
  body: string
  attempts: number
  status: 'pending' | 'delivered' | 'failed' | 'dropped'
  due_at: number
  lease_until: number
  created_at: string
  redelivery_of: string | null
}

export interface WebhookLogsTable {
  id: string
  seq: number
  webhook_id: string
  board_id: string | null
  delivery_id: string
  event: string
  attempt: number
  status_code: number | null
  outcome: 'delivered' | 'failed' | 'retrying' | 'dropped'
  error: string | null
  duration_ms: number
  at: string
  request_body: string
  response_excerpt: string
}

export interface SigningSecretsTable {
  id: string
  name: string
  value_enc: string
  created_by: string | null
  created_at: string
  updated_at: string
  previous_value_enc: string | null
  previous_until: string | null
}

export interface IncomingEndpointsTable {
  id: string
  name: string
  path: string
  auth_type: 'none' | 'header' | 'basic'
  auth_header_name: string | null
  auth_enc: string | null
  methods: string
  all_boards: number
  accept_files: number
  max_files: number
  paused: number
  created_by: string | null
  created_at: string
  updated_at: string
}

export interface IncomingEndpointBoardsTable {
  endpoint_id: string
  board_id: string
}

export interface IncomingRequestsTable {
  id: string
  seq: number
  endpoint_id: string
  outcome: 'accepted' | 'auth_failed' | 'method_not_allowed' | 'unsupported_body' | 'too_large' | 'rate_limited' | 'files_refused' | 'paused'
  status: number
  method: string
  ip: string
  headers: string
  query: string
  body: string
  files: string
  at: string
}

export interface AutomationsTable {
  id: string
  board_id: string
  name: string
  active: number
  trigger_type: 'incoming_webhook' | 'event' | 'schedule'
  endpoint_id: string | null
  events: string | null
  filter: string | null
  cron: string | null
  timezone: string | null
  next_run_at: number | null
  steps: string
  created_by: string | null
  created_at: string
  updated_at: string
  paused_reason: 'chain_too_deep' | 'too_many_runs' | null
  run_window_at: number
  run_window_count: number
}

export interface AutomationSecretsTable {
  automation_id: string
  secret_id: string
}

export interface AutomationRunsTable {
  id: string
  seq: number
  automation_id: string
  status: 'queued' | 'running' | 'succeeded' | 'failed'
  trigger_data: string
  actor: string
  context: string
  steps: string
  request_id: string | null
  error: string | null
  due_at: number
  lease_until: number
  created_at: string
  started_at: string | null
  finished_at: string | null
  claims: number
  chain: string
}

export interface AutomationRunStepsTable {
  run_id: string
  idx: number
  type: string
  status: 'succeeded' | 'failed' | 'skipped'
  output: string | null
  error: string | null
  started_at: string | null
  finished_at: string | null
}

export interface CommentsTable {
  id: string
  card_id: string
  body: string
  author_id: string | null
  author: string
  created_at: string
  updated_at: string
}

export interface CommentMentionsTable {
  comment_id: string
  user_id: string
}

export interface ChecklistsTable {
  id: string
  card_id: string
  title: string
  position: number
  created_by: string | null
  created_at: string
  updated_at: string
}

export interface ChecklistItemsTable {
  id: string
  checklist_id: string
  text: string
  position: number
  completed: number
  completed_at: string | null
  completed_by: string | null
  created_at: string
  updated_at: string
}

export interface TimeEntriesTable {
  id: string
  card_id: string
  user_id: string
  started_at: string
  ended_at: string | null
  duration_seconds: number | null
  note: string
  billable: number
  created_at: string
  updated_at: string
}

export interface TimesheetApprovalsTable {
  id: string
  user_id: string
  period_start: string
  period_end: string
  status: 'submitted' | 'approved' | 'rejected'
  note: string
  comment: string | null
  reviewed_by: string | null
  reviewed_at: string | null
  created_at: string
  updated_at: string
}

export interface UserBillingRatesTable {
  id: string
  user_id: string
  hourly_rate: number
  currency: string
  starts_on: string
  created_by: string | null
  created_at: string
  updated_at: string
}

export interface NoteFoldersTable {
  id: string
  name: string
  parent_id: string | null
  board_id: string | null
  created_by: string | null
  created_at: string
  updated_at: string
}

export interface NotesTable {
  id: string
  title: string
  body: string
  folder_id: string | null
  board_id: string | null
  card_id: string | null
  created_by: string | null
  created_at: string
  updated_at: string
}

export interface NotePublicationsTable {
  id: string
  note_id: string
  slug: string
  title: string
  body: string
  created_by: string | null
  created_at: string
  updated_at: string
}

export interface InboxItemsTable {
  id: string
  user_id: string
  kind: 'assigned' | 'mentioned' | 'commented' | 'completed' | 'watching' | 'question' | 'webhook_paused'
  card_id: string | null
  comment_id: string | null
  question_id: string | null
  actor: string
  read_at: string | null
  created_at: string
  webhook_id: string | null
}

export interface AgentProfilesTable {
  user_id: string
  owner_id: string
  wake_url: string | null
  signing_secret_id: string | null
  powers: string
  updated_at: string
}

export interface AgentWorkflowsTable {
  id: string
  board_id: string
  name: string
  is_default: number
  created_by: string | null
  created_at: string
  updated_at: string
}

export interface AgentWorkflowStepsTable {
  workflow_id: string
  idx: number
  name: string
  agent_id: string
  launch_url: string | null
  signing_secret_id: string | null
  instructions: string | null
}

export interface AgentRunsTable {
  id: string
  kickoff_id: string
  agent_id: string
  card_id: string
  board_id: string
  workflow_id: string | null
  step: number | null
  step_name: string | null
  status: 'pending' | 'running' | 'needs_input' | 'blocked' | 'stalled' | 'done_proposed' | 'completed' | 'failed' | 'cancelled'
  summary: string | null
  error: string | null
  last_activity_at: string
  created_at: string
  finished_at: string | null
}

export interface AgentKickoffsTable {
  id: string
  card_id: string
  board_id: string
  agent_id: string
  workflow_id: string | null
  step: number | null
  step_name: string | null
  powers: string
  model: string | null
  effort: 'low' | 'medium' | 'high' | 'max' | null
  message: string | null
  status: 'pending' | 'delivered' | 'queued' | 'expired' | 'cancelled'
  via: 'auto_start' | 'local_access' | 'service_ai' | null
  attempts: number
  next_attempt_at: number
  lease_until: number
  last_error: string | null
  expires_at: string
  run_id: string
  requested_by: string
  requester_id: string | null
  delivered_at: string | null
  created_at: string
  updated_at: string
  chain: string
}

export interface AgentRunActivityTable {
  id: string
  seq: number
  run_id: string
  type: string
  text: string | null
  by_actor: string
  at: string
}

export interface AgentQuestionsTable {
  id: string
  run_id: string
  card_id: string
  board_id: string
  question: string
  status: 'open' | 'answered' | 'dismissed'
  answer: string | null
  asked_by: string
  answered_by: string | null
  created_at: string
  answered_at: string | null
}

export interface AgentClaimWaitsTable {
  id: string
  agent_id: string
  until: number
}

export interface FilesTable {
  id: string
  card_id: string | null
  note_id: string | null
  request_id: string | null
  name: string
  content_type: string
  size: number
  sha256: string
  complete: number
  created_by: string | null
  created_at: string
}

export interface FileChunksTable {
  file_id: string
  seq: number
  data: Buffer
}

export interface CardDependenciesTable {
  id: string
  blocker_id: string
  blocked_id: string
  created_by: string | null
  created_at: string
}

export interface EntityLinksTable {
  id: string
  kind: 'relates_to' | 'duplicates' | 'parent_of'
  source_card_id: string
  target_type: 'card' | 'note' | 'milestone' | 'url'
  target_card_id: string | null
  target_note_id: string | null
  target_milestone_id: string | null
  url: string | null
  title: string | null
  created_by: string | null
  created_at: string
}

export interface XattrFieldsTable {
  id: string
  board_id: string
  name: string
  key: string
  type: string
  required: number
  position: number
  rollup: string | null
  formula: string | null
  created_at: string
  updated_at: string
}

export interface XattrOptionsTable {
  id: string
  field_id: string
  name: string
  color: string | null
  position: number
}

export interface CardXattrTable {
  card_id: string
  field_id: string
  seq: number
  num: number | null
  str: string | null
}

export interface TemplatesTable {
  id: string
  name: string
  description: string
  content: string
  created_by: string | null
  created_at: string
  updated_at: string
}

export interface CardTemplatesTable {
  id: string
  board_id: string
  name: string
  title: string
  description: string
  priority: number | null
  tags: string
  assignees: string
  checklist: string
  xattr: string
  created_at: string
  updated_at: string
}

export interface SavedFiltersTable {
  id: string
  name: string
  resource: 'cards'
  filter: string
  sort: string | null
  expand: string | null
  board_id: string | null
  shared: number
  created_by: string
  created_at: string
  updated_at: string
}

export interface SearchDocsTable {
  id: number
  kind: 'card' | 'comment' | 'note'
  record_id: string
}

export interface FormsTable {
  id: string
  board_id: string
  list_id: string | null
  name: string
  description: string
  slug: string
  open: number
  fields: string
  thank_you: string
  created_at: string
  updated_at: string
}

export interface UserPasswordsTable {
  user_id: string
  hash: string
  updated_at: string
}

export interface SessionsTable {
  id: string
  user_id: string
  hash: string
  via: 'password' | 'link'
  user_agent: string | null
  address: string | null
  created_at: string
  last_used_at: string
  expires_at: string
}

export interface LoginLinksTable {
  id: string
  user_id: string
  hash: string
  created_at: string
  expires_at: string
  used_at: string | null
}

export interface AuditLogTable {
  id: string
  action: string
  actor_type: string
  actor_id: string | null
  actor_name: string
  target_type: string
  target_id: string | null
  target_name: string | null
  board_id: string | null
  details: string
  request_id: string | null
  created_at: string
}

export interface GitConnectionsTable {
  id: string
  provider: 'github' | 'gitlab' | 'gitea'
  name: string
  created_by: string | null
  created_at: string
  updated_at: string
}

export interface GitConnectionSecretsTable {
  connection_id: string
  secret_enc: string
}

export interface GitRepositoriesTable {
  id: string
  connection_id: string
  full_name: string
  url: string
  board_id: string | null
  rules: string
  created_at: string
  updated_at: string
}

export interface GitResourcesTable {
  id: string
  repository_id: string
  kind: 'branch' | 'commit' | 'pull_request'
  ref: string
  title: string
  url: string
  state: string
  author: string | null
  created_at: string
  updated_at: string
}

export interface GitResourceCardsTable {
  resource_id: string
  card_id: string
  created_at: string
}

export interface PipelinesTable {
  id: string
  repository_id: string
  provider_id: string
  name: string
  branch: string | null
  commit_sha: string | null
  status: 'queued' | 'running' | 'success' | 'failure' | 'canceled'
  url: string | null
  started_at: string | null
  finished_at: string | null
  created_by: string | null
  created_at: string
  updated_at: string
}

export interface PipelineCardsTable {
  pipeline_id: string
  card_id: string
  created_at: string
}

export interface DB {
  workspace: WorkspaceTable
  users: UsersTable
  tokens: TokensTable
  user_groups: UserGroupsTable
  user_group_members: UserGroupMembersTable
  folders: FoldersTable
  boards: BoardsTable
  key_prefixes: KeyPrefixesTable
  board_members: BoardMembersTable
  board_statuses: BoardStatusesTable
  milestones: MilestonesTable
  lists: ListsTable
  cards: CardsTable
  card_assignees: CardAssigneesTable
  card_watchers: CardWatchersTable
  tags: TagsTable
  card_tags: CardTagsTable
  events: EventsTable
  webhooks: WebhooksTable
  webhook_boards: WebhookBoardsTable
  outbox: OutboxTable
  webhook_logs: WebhookLogsTable
  signing_secrets: SigningSecretsTable
  incoming_endpoints: IncomingEndpointsTable
  incoming_endpoint_boards: IncomingEndpointBoardsTable
  incoming_requests: IncomingRequestsTable
  automations: AutomationsTable
  automation_secrets: AutomationSecretsTable
  automation_runs: AutomationRunsTable
  automation_run_steps: AutomationRunStepsTable
  comments: CommentsTable
  comment_mentions: CommentMentionsTable
  checklists: ChecklistsTable
  checklist_items: ChecklistItemsTable
  time_entries: TimeEntriesTable
  timesheet_approvals: TimesheetApprovalsTable
  user_billing_rates: UserBillingRatesTable
  note_folders: NoteFoldersTable
  notes: NotesTable
  note_publications: NotePublicationsTable
  inbox_items: InboxItemsTable
  agent_profiles: AgentProfilesTable
  agent_workflows: AgentWorkflowsTable
  agent_workflow_steps: AgentWorkflowStepsTable
  agent_runs: AgentRunsTable
  agent_kickoffs: AgentKickoffsTable
  agent_run_activity: AgentRunActivityTable
  agent_questions: AgentQuestionsTable
  agent_claim_waits: AgentClaimWaitsTable
  files: FilesTable
  file_chunks: FileChunksTable
  card_dependencies: CardDependenciesTable
  entity_links: EntityLinksTable
  xattr_fields: XattrFieldsTable
  xattr_options: XattrOptionsTable
  card_xattr: CardXattrTable
  templates: TemplatesTable
  card_templates: CardTemplatesTable
  saved_filters: SavedFiltersTable
  search_docs: SearchDocsTable
  forms: FormsTable
  user_passwords: UserPasswordsTable
  sessions: SessionsTable
  login_links: LoginLinksTable
  audit_log: AuditLogTable
  git_connections: GitConnectionsTable
  git_connection_secrets: GitConnectionSecretsTable
  git_repositories: GitRepositoriesTable
  git_resources: GitResourcesTable
  git_resource_cards: GitResourceCardsTable
  pipelines: PipelinesTable
  pipeline_cards: PipelineCardsTable
}

// Schema versions, one set for both dialects. schema.sql (SQLite) and schema.pg.sql (PostgreSQL) are always the whole
// current schema, which a new database gets at once; MIGRATIONS bring an older database up to it, a step per version,
// written for each dialect. A change to the schema is a change to both files plus a step here (test/db/migrate.test.ts
// checks that a version-1 database migrated ends exactly like a new one).
import type Database from 'better-sqlite3'
import { asset } from '../assets.js'
import type { Q } from './database.js'

interface Migration {
  sqlite: string
  postgres: string
}

const BOARD_RIGHTS = `ALTER TABLE boards ADD COLUMN trashed_at TEXT;
ALTER TABLE boards ADD COLUMN trashed_by TEXT REFERENCES users(id) ON DELETE SET NULL;
ALTER TABLE boards ADD COLUMN purge_at TEXT;
CREATE INDEX boards_purge ON boards(purge_at) WHERE purge_at IS NOT NULL;
ALTER TABLE board_members ADD COLUMN role TEXT NOT NULL DEFAULT 'member' CHECK (role IN ('admin', 'member'));
UPDATE board_members SET role = 'admin' WHERE user_id = (SELECT created_by FROM boards WHERE boards.id = board_members.board_id);
UPDATE board_members SET role = 'admin'
 WHERE NOT EXISTS (SELECT 1 FROM board_members a WHERE a.board_id = board_members.board_id AND a.role = 'admin')
   AND user_id = (SELECT f.user_id FROM board_members f WHERE f.board_id = board_members.board_id ORDER BY f.created_at, f.user_id LIMIT 1);`

const KEYS_AND_PAUSES = `ALTER TABLE key_prefixes ADD COLUMN last_num INTEGER;
UPDATE key_prefixes SET last_num = (SELECT b.next_key - 1 FROM boards b WHERE b.id = key_prefixes.board_id)
 WHERE NOT EXISTS (SELECT 1 FROM boards b WHERE b.id = key_prefixes.board_id AND b.key_prefix = key_prefixes.prefix);
ALTER TABLE webhooks ADD COLUMN paused_reason TEXT;`

const SIGNING_SECRETS = `CREATE TABLE signing_secrets (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  value_enc TEXT NOT NULL,
  created_by TEXT REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);`

const INCOMING_ENDPOINTS = `CREATE TABLE incoming_endpoints (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  path TEXT NOT NULL UNIQUE,     -- the random part of /v1/hooks/<path> (192 bits); regenerate replaces it
  auth_type TEXT NOT NULL DEFAULT 'none' CHECK (auth_type IN ('none', 'header', 'basic')),
  auth_header_name TEXT,
  auth_enc TEXT,                 -- sealed credentials (header value, or username and password)
  methods TEXT NOT NULL,         -- JSON array of the HTTP methods it accepts
  all_boards INTEGER NOT NULL DEFAULT 1, -- the board allowlist was empty when saved (every board); deleting its boards never widens it
  accept_files INTEGER NOT NULL DEFAULT 0,
  max_files INTEGER NOT NULL DEFAULT 5,
  paused INTEGER NOT NULL DEFAULT 0,
  created_by TEXT REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);`
const incomingBoards = (withoutRowid: string) => `CREATE TABLE incoming_endpoint_boards (
  endpoint_id TEXT NOT NULL REFERENCES incoming_endpoints(id) ON DELETE CASCADE,
  board_id TEXT NOT NULL REFERENCES boards(id) ON DELETE CASCADE,
  PRIMARY KEY (endpoint_id, board_id)
)${withoutRowid};
CREATE INDEX incoming_endpoint_boards_board ON incoming_endpoint_boards(board_id, endpoint_id);`

const incomingRequests = (seq: string) => `CREATE TABLE incoming_requests (
  id TEXT PRIMARY KEY,
  seq ${seq},
  endpoint_id TEXT NOT NULL REFERENCES incoming_endpoints(id) ON DELETE CASCADE,
  outcome TEXT NOT NULL CHECK (outcome IN ('accepted', 'auth_failed', 'method_not_allowed', 'unsupported_body', 'too_large', 'rate_limited', 'files_refused', 'paused')),
  status INTEGER NOT NULL,
  method TEXT NOT NULL,
  ip TEXT NOT NULL,
  headers TEXT NOT NULL,         -- JSON: content-type, user-agent, x-request-id and x-delivery-id only, never credentials
  query TEXT NOT NULL,           -- JSON
  body TEXT NOT NULL,            -- the body as text, at most 64 KB; never file bytes
  files TEXT NOT NULL,           -- JSON [{ name, size, type }]
  at TEXT NOT NULL
);
CREATE INDEX incoming_requests_endpoint ON incoming_requests(endpoint_id, seq);`

const incomingFiles = (blob: string) => `CREATE TABLE incoming_files (
  id TEXT PRIMARY KEY,
  request_id TEXT NOT NULL REFERENCES incoming_requests(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  type TEXT NOT NULL,
  size INTEGER NOT NULL,
  data ${blob} NOT NULL
);
CREATE INDEX incoming_files_request ON incoming_files(request_id);`

const automations = (ms: string, seq: string, withoutRowid: string) => `CREATE TABLE automations (
  id TEXT PRIMARY KEY,
  board_id TEXT NOT NULL REFERENCES boards(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  active INTEGER NOT NULL DEFAULT 1,
  trigger_type TEXT NOT NULL CHECK (trigger_type IN ('incoming_webhook', 'event', 'schedule')),
  endpoint_id TEXT REFERENCES incoming_endpoints(id), -- incoming_webhook: deleting an endpoint in use is refused
  events TEXT,                   -- event: JSON array of selectors
  filter TEXT,                   -- event: card filter, or NULL
  cron TEXT,                     -- schedule: 5-field cron
  timezone TEXT,                 -- schedule: IANA zone
  next_run_at ${ms},             -- schedule: the next slot (epoch ms)
  steps TEXT NOT NULL,           -- JSON array of steps, as written ({secret.<id>} kept as text)
  created_by TEXT REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX automations_board ON automations(board_id, trigger_type);
CREATE INDEX automations_endpoint ON automations(endpoint_id) WHERE endpoint_id IS NOT NULL;
CREATE INDEX automations_schedule ON automations(next_run_at) WHERE next_run_at IS NOT NULL;
CREATE TABLE automation_secrets (
  automation_id TEXT NOT NULL REFERENCES automations(id) ON DELETE CASCADE,
  secret_id TEXT NOT NULL REFERENCES signing_secrets(id),
  PRIMARY KEY (automation_id, secret_id)
)${withoutRowid};
CREATE INDEX automation_secrets_secret ON automation_secrets(secret_id);
CREATE TABLE automation_runs (
  id TEXT PRIMARY KEY,
  seq ${seq},
  automation_id TEXT NOT NULL REFERENCES automations(id) ON DELETE CASCADE,
  status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'succeeded', 'failed')),
  trigger_data TEXT NOT NULL,    -- JSON: { type, endpoint? | event? | scheduled_for? }
  actor TEXT NOT NULL,           -- JSON: { type, id, name }
  context TEXT NOT NULL,         -- JSON: what the placeholders read (webhook.* or event.*)
  steps TEXT NOT NULL,           -- JSON: the automation's steps when the run was queued (a later edit does not change it)
  request_id TEXT,               -- the incoming request that started it (no foreign key: the log is pruned)
  error TEXT,
  due_at ${ms} NOT NULL,
  lease_until ${ms} NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  started_at TEXT,
  finished_at TEXT
);
CREATE INDEX automation_runs_due ON automation_runs(due_at) WHERE status IN ('queued', 'running');
CREATE INDEX automation_runs_automation ON automation_runs(automation_id, seq);
CREATE INDEX automation_runs_request ON automation_runs(request_id) WHERE request_id IS NOT NULL;
CREATE TABLE automation_run_steps (
  run_id TEXT NOT NULL REFERENCES automation_runs(id) ON DELETE CASCADE,
  idx INTEGER NOT NULL,
  type TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('succeeded', 'failed', 'skipped')),
  output TEXT,                   -- JSON
  error TEXT,
  started_at TEXT,
  finished_at TEXT,
  PRIMARY KEY (run_id, idx)
)${withoutRowid};`

/** Comments, checklists, time, notes and the inbox (version 9). `real` is REAL or DOUBLE PRECISION. */
const collaboration = (real: string, withoutRowid: string) => `CREATE TABLE comments (
  id TEXT PRIMARY KEY,
  card_id TEXT NOT NULL REFERENCES cards(id) ON DELETE CASCADE,
  body TEXT NOT NULL,            -- Markdown
  author_id TEXT REFERENCES users(id) ON DELETE SET NULL, -- the user who wrote it (NULL when an automation run did)
  author TEXT NOT NULL,          -- JSON { id, name, kind } as written: a user, or what an automation run acted for
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX comments_card ON comments(card_id, created_at);
CREATE INDEX comments_author ON comments(author_id);
CREATE TABLE comment_mentions (
  comment_id TEXT NOT NULL REFERENCES comments(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  PRIMARY KEY (comment_id, user_id)
)${withoutRowid};
CREATE INDEX comment_mentions_user ON comment_mentions(user_id, comment_id);
CREATE TABLE checklists (
  id TEXT PRIMARY KEY,
  card_id TEXT NOT NULL REFERENCES cards(id) ON DELETE CASCADE,
  title TEXT NOT NULL,
  position ${real} NOT NULL,
  created_by TEXT REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX checklists_card ON checklists(card_id, position);
CREATE TABLE checklist_items (
  id TEXT PRIMARY KEY,
  checklist_id TEXT NOT NULL REFERENCES checklists(id) ON DELETE CASCADE,
  text TEXT NOT NULL,
  position ${real} NOT NULL,
  completed INTEGER NOT NULL DEFAULT 0,
  completed_at TEXT,
  completed_by TEXT REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX checklist_items_checklist ON checklist_items(checklist_id, position);
CREATE INDEX checklist_items_completed_by ON checklist_items(completed_by);
CREATE TABLE time_entries (
  id TEXT PRIMARY KEY,
  card_id TEXT NOT NULL REFERENCES cards(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  started_at TEXT NOT NULL,
  ended_at TEXT,                 -- NULL while its timer runs
  duration_seconds INTEGER,      -- set when it ends (NULL while running), so totals are sums
  note TEXT NOT NULL DEFAULT '',
  billable INTEGER NOT NULL DEFAULT 1,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX time_entries_card ON time_entries(card_id, started_at);
CREATE INDEX time_entries_user ON time_entries(user_id, started_at);
-- One running timer per user, kept by the database as well as the service.
CREATE UNIQUE INDEX time_entries_running ON time_entries(user_id) WHERE ended_at IS NULL;
CREATE TABLE timesheet_approvals (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  period_start TEXT NOT NULL,    -- YYYY-MM-DD, first day
  period_end TEXT NOT NULL,      -- YYYY-MM-DD, last day (inclusive)
  status TEXT NOT NULL CHECK (status IN ('submitted', 'approved', 'rejected')),
  note TEXT NOT NULL DEFAULT '', -- the submitter's
  comment TEXT,                  -- the reviewer's
  reviewed_by TEXT REFERENCES users(id) ON DELETE SET NULL,
  reviewed_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX timesheet_approvals_user ON timesheet_approvals(user_id, period_start);
CREATE TABLE user_billing_rates (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  hourly_rate ${real} NOT NULL,
  currency TEXT NOT NULL,        -- ISO 4217 code
  starts_on TEXT NOT NULL,       -- YYYY-MM-DD: in force from this day until the next rate of the user starts
  created_by TEXT REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (user_id, starts_on)
);
CREATE TABLE note_folders (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  parent_id TEXT REFERENCES note_folders(id) ON DELETE CASCADE,
  board_id TEXT REFERENCES boards(id) ON DELETE CASCADE,
  created_by TEXT REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX note_folders_parent ON note_folders(parent_id);
CREATE INDEX note_folders_board ON note_folders(board_id);
CREATE TABLE notes (
  id TEXT PRIMARY KEY,
  title TEXT NOT NULL,
  body TEXT NOT NULL DEFAULT '', -- Markdown
  folder_id TEXT REFERENCES note_folders(id) ON DELETE SET NULL,
  board_id TEXT REFERENCES boards(id) ON DELETE CASCADE,
  card_id TEXT REFERENCES cards(id) ON DELETE SET NULL,
  created_by TEXT REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX notes_board ON notes(board_id, updated_at);
CREATE INDEX notes_folder ON notes(folder_id);
CREATE INDEX notes_card ON notes(card_id);
CREATE INDEX notes_created_by ON notes(created_by);
CREATE TABLE note_publications (
  id TEXT PRIMARY KEY,
  note_id TEXT NOT NULL UNIQUE REFERENCES notes(id) ON DELETE CASCADE,
  slug TEXT NOT NULL UNIQUE,     -- 128 random bits; the public URL's only key
  title TEXT NOT NULL,           -- the published copy
  body TEXT NOT NULL,
  created_by TEXT REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE TABLE inbox_items (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  kind TEXT NOT NULL CHECK (kind IN ('assigned', 'mentioned', 'commented', 'completed', 'watching', 'question')),
  card_id TEXT NOT NULL REFERENCES cards(id) ON DELETE CASCADE,
  comment_id TEXT REFERENCES comments(id) ON DELETE CASCADE,
  question_id TEXT,              -- agents (later)
  actor TEXT NOT NULL,           -- JSON { id, name, kind } of who caused it
  read_at TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX inbox_items_user ON inbox_items(user_id, created_at);
CREATE INDEX inbox_items_unread ON inbox_items(user_id) WHERE read_at IS NULL;
CREATE INDEX inbox_items_card ON inbox_items(card_id);
CREATE INDEX inbox_items_comment ON inbox_items(comment_id) WHERE comment_id IS NOT NULL;`

const agents = (ms: string, seq: string, withoutRowid: string) => `CREATE TABLE agent_profiles (
  user_id TEXT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE, -- a user whose kind is agent
  owner_id TEXT NOT NULL REFERENCES users(id),
  wake_url TEXT,                 -- auto_start: the agent's own runner
  signing_secret_id TEXT REFERENCES signing_secrets(id), -- signs calls to wake_url; deleting a secret in use is refused
  powers TEXT NOT NULL,          -- JSON array of auto_start, local_access, service_ai
  updated_at TEXT NOT NULL
);
CREATE INDEX agent_profiles_owner ON agent_profiles(owner_id);
CREATE INDEX agent_profiles_secret ON agent_profiles(signing_secret_id);
CREATE TABLE agent_workflows (
  id TEXT PRIMARY KEY,
  board_id TEXT NOT NULL REFERENCES boards(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  is_default INTEGER NOT NULL DEFAULT 0,
  created_by TEXT REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX agent_workflows_board ON agent_workflows(board_id, created_at);
CREATE UNIQUE INDEX agent_workflows_one_default ON agent_workflows(board_id) WHERE is_default = 1;
CREATE TABLE agent_workflow_steps (
  workflow_id TEXT NOT NULL REFERENCES agent_workflows(id) ON DELETE CASCADE,
  idx INTEGER NOT NULL,          -- 1-based order
  name TEXT NOT NULL,
  agent_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  launch_url TEXT,
  signing_secret_id TEXT REFERENCES signing_secrets(id),
  instructions TEXT,
  PRIMARY KEY (workflow_id, idx)
)${withoutRowid};
CREATE INDEX agent_workflow_steps_agent ON agent_workflow_steps(agent_id);
CREATE INDEX agent_workflow_steps_secret ON agent_workflow_steps(signing_secret_id);
CREATE TABLE agent_runs (
  id TEXT PRIMARY KEY,
  kickoff_id TEXT NOT NULL,
  agent_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  card_id TEXT NOT NULL REFERENCES cards(id) ON DELETE CASCADE,
  board_id TEXT NOT NULL,
  workflow_id TEXT REFERENCES agent_workflows(id) ON DELETE SET NULL,
  step INTEGER,                  -- 1-based step of the workflow
  step_name TEXT,
  status TEXT NOT NULL CHECK (status IN ('pending', 'running', 'needs_input', 'blocked', 'stalled', 'done_proposed', 'completed', 'failed', 'cancelled')),
  summary TEXT,                  -- the last done proposal
  error TEXT,                    -- why it failed
  last_activity_at TEXT NOT NULL,
  created_at TEXT NOT NULL,
  finished_at TEXT
);
CREATE INDEX agent_runs_card ON agent_runs(card_id, created_at);
CREATE INDEX agent_runs_agent ON agent_runs(agent_id, created_at);
CREATE INDEX agent_runs_board ON agent_runs(board_id, created_at);
CREATE INDEX agent_runs_running ON agent_runs(last_activity_at) WHERE status = 'running';
CREATE TABLE agent_kickoffs (
  id TEXT PRIMARY KEY,
  card_id TEXT NOT NULL REFERENCES cards(id) ON DELETE CASCADE,
  board_id TEXT NOT NULL,
  agent_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  workflow_id TEXT REFERENCES agent_workflows(id) ON DELETE SET NULL,
  step INTEGER,
  step_name TEXT,
  powers TEXT NOT NULL,          -- JSON array: the powers asked for; [] = any the agent has
  model TEXT,
  effort TEXT CHECK (effort IN ('low', 'medium', 'high', 'max')),
  message TEXT,
  status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'queued', 'expired', 'cancelled')),
  via TEXT CHECK (via IN ('auto_start', 'local_access', 'service_ai')),
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at ${ms} NOT NULL, -- epoch ms; at most expires_at
  lease_until ${ms} NOT NULL DEFAULT 0, -- epoch ms: a process is attempting it until then
  last_error TEXT,
  expires_at TEXT NOT NULL,
  run_id TEXT NOT NULL UNIQUE REFERENCES agent_runs(id) ON DELETE CASCADE,
  requested_by TEXT NOT NULL,    -- JSON { id, name, kind }
  requester_id TEXT REFERENCES users(id) ON DELETE SET NULL,
  delivered_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX agent_kickoffs_due ON agent_kickoffs(next_attempt_at) WHERE status IN ('pending', 'queued');
CREATE INDEX agent_kickoffs_agent ON agent_kickoffs(agent_id, created_at);
CREATE INDEX agent_kickoffs_card ON agent_kickoffs(card_id);
CREATE INDEX agent_kickoffs_board ON agent_kickoffs(board_id, created_at);
CREATE TABLE agent_run_activity (
  id TEXT PRIMARY KEY,
  seq ${seq},
  run_id TEXT NOT NULL REFERENCES agent_runs(id) ON DELETE CASCADE,
  type TEXT NOT NULL,
  text TEXT,                     -- the message, reason, summary, error or feedback
  by_actor TEXT NOT NULL,        -- JSON { id, name, kind }
  at TEXT NOT NULL
);
CREATE INDEX agent_run_activity_run ON agent_run_activity(run_id, seq);
CREATE TABLE agent_questions (
  id TEXT PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES agent_runs(id) ON DELETE CASCADE,
  card_id TEXT NOT NULL REFERENCES cards(id) ON DELETE CASCADE,
  board_id TEXT NOT NULL,
  question TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('open', 'answered', 'dismissed')),
  answer TEXT,
  asked_by TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  answered_by TEXT,              -- JSON { id, name }
  created_at TEXT NOT NULL,
  answered_at TEXT
);
CREATE INDEX agent_questions_run ON agent_questions(run_id, created_at);
CREATE INDEX agent_questions_card ON agent_questions(card_id);`

const RUN_CLAIMS = `ALTER TABLE automation_runs ADD COLUMN claims INTEGER NOT NULL DEFAULT 0;`

/** The card indexes in page order, with the tie-break (version 12; see schema.sql). */
const CARD_ORDER_INDEXES = `DROP INDEX cards_board_list;
DROP INDEX cards_board_created;
DROP INDEX cards_board_priority;
DROP INDEX cards_board_due;
DROP INDEX cards_created;
DROP INDEX cards_due;
DROP INDEX cards_priority;
DROP INDEX cards_order;
CREATE INDEX cards_board_position ON cards(board_id, trashed, position, created_at, id);
CREATE INDEX cards_board_list ON cards(board_id, trashed, list_id, position, created_at, id);
CREATE INDEX cards_board_created ON cards(board_id, trashed, created_at, id);
CREATE INDEX cards_board_updated ON cards(board_id, trashed, updated_at, id);
CREATE INDEX cards_board_title ON cards(board_id, trashed, title, id);
CREATE INDEX cards_board_priority ON cards(board_id, trashed, priority, id);
CREATE INDEX cards_board_due ON cards(board_id, trashed, due_date, id);
CREATE INDEX cards_board_start ON cards(board_id, trashed, start_date, id);
CREATE INDEX cards_board_completed_at ON cards(board_id, trashed, completed_at, id);
CREATE INDEX cards_position ON cards(position, created_at, id);
CREATE INDEX cards_created ON cards(created_at, id);
CREATE INDEX cards_updated ON cards(updated_at, id);
CREATE INDEX cards_priority ON cards(priority, id);
CREATE INDEX cards_due ON cards(due_date, id);
`

const CARD_GLOBAL_ORDER_INDEXES = `DROP INDEX cards_board_due;
DROP INDEX cards_board_start;
DROP INDEX cards_board_completed_at;
DROP INDEX cards_due;
CREATE INDEX cards_board_due ON cards(board_id, trashed, due_date, created_at, id);
CREATE INDEX cards_board_start ON cards(board_id, trashed, start_date, created_at, id);
CREATE INDEX cards_board_completed_at ON cards(board_id, trashed, completed_at, created_at, id);
CREATE INDEX cards_due ON cards(due_date, created_at, id);
CREATE INDEX cards_title ON cards(title, id);
CREATE INDEX cards_start ON cards(start_date, created_at, id);
CREATE INDEX cards_completed_at ON cards(completed_at, created_at, id);
CREATE INDEX cards_key ON cards(key_num, id);
`

/** Version 14. `ms` is INTEGER or BIGINT (epoch milliseconds). */
const causalChains = (
  ms: string,
  withoutRowid: string,
) => `ALTER TABLE automations ADD COLUMN paused_reason TEXT CHECK (paused_reason IN ('chain_too_deep', 'too_many_runs'));
ALTER TABLE automations ADD COLUMN run_window_at ${ms} NOT NULL DEFAULT 0;
ALTER TABLE automations ADD COLUMN run_window_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE automation_runs ADD COLUMN chain TEXT NOT NULL DEFAULT '[]';
ALTER TABLE agent_kickoffs ADD COLUMN chain TEXT NOT NULL DEFAULT '[]';
CREATE TABLE agent_claim_waits (
  id TEXT NOT NULL,
  agent_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  until ${ms} NOT NULL,
  PRIMARY KEY (agent_id, id)
)${withoutRowid};`

/**
 * Step 17: planning structures. Board statuses (lists may be bound to one), milestones (cards name theirs), folders of
 * boards, and groups of users, which take over the teams (`teams` and `team_members`, which no route wrote) with their
 * members; a team whose name folds like an earlier one's gets its id added to its name, names of groups being unique.
 */
const planning = (real: string, withoutRowid: string) => `CREATE TABLE user_groups (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  kind TEXT NOT NULL DEFAULT 'group' CHECK (kind IN ('group', 'team')),
  created_by TEXT REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX user_groups_name ON user_groups(lower(name));
CREATE TABLE user_group_members (
  group_id TEXT NOT NULL REFERENCES user_groups(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  PRIMARY KEY (group_id, user_id)
)${withoutRowid};
CREATE INDEX user_group_members_user ON user_group_members(user_id, group_id);
INSERT INTO user_groups (id, name, kind, created_by, created_at, updated_at)
  SELECT id, CASE WHEN EXISTS (SELECT 1 FROM teams t2 WHERE lower(t2.name) = lower(teams.name) AND t2.id < teams.id)
    THEN name || ' (' || id || ')' ELSE name END, 'team', NULL, created_at, created_at FROM teams;
INSERT INTO user_group_members (group_id, user_id) SELECT team_id, user_id FROM team_members;
DROP TABLE team_members;
DROP TABLE teams;
CREATE TABLE folders (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  parent_id TEXT REFERENCES folders(id),
  position ${real} NOT NULL,
  created_by TEXT REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX folders_parent ON folders(parent_id, position);
ALTER TABLE boards ADD COLUMN folder_id TEXT REFERENCES folders(id) ON DELETE SET NULL;
CREATE INDEX boards_folder ON boards(folder_id);
CREATE TABLE board_statuses (
  id TEXT PRIMARY KEY,
  board_id TEXT NOT NULL REFERENCES boards(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  category TEXT NOT NULL CHECK (category IN ('backlog', 'unstarted', 'started', 'completed', 'canceled')),
  color TEXT,
  position ${real} NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX board_statuses_board ON board_statuses(board_id, position);
CREATE UNIQUE INDEX board_statuses_name ON board_statuses(board_id, lower(name));
ALTER TABLE lists ADD COLUMN status_id TEXT REFERENCES board_statuses(id) ON DELETE SET NULL;
CREATE INDEX lists_status ON lists(status_id);
CREATE TABLE milestones (
  id TEXT PRIMARY KEY,
  board_id TEXT NOT NULL REFERENCES boards(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  due_date TEXT,
  state TEXT NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'closed')),
  created_by TEXT REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX milestones_board ON milestones(board_id, created_at);
ALTER TABLE cards ADD COLUMN milestone_id TEXT REFERENCES milestones(id) ON DELETE SET NULL;
CREATE INDEX cards_milestone ON cards(milestone_id);`
const PLANNING_LINKS = `ALTER TABLE cards ADD COLUMN parent_id TEXT REFERENCES cards(id) ON DELETE SET NULL;
CREATE INDEX cards_parent ON cards(parent_id) WHERE parent_id IS NOT NULL;
CREATE TABLE card_dependencies (
  id TEXT PRIMARY KEY,
  blocker_id TEXT NOT NULL REFERENCES cards(id) ON DELETE CASCADE,
  blocked_id TEXT NOT NULL REFERENCES cards(id) ON DELETE CASCADE,
  created_by TEXT REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  CHECK (blocker_id <> blocked_id),
  UNIQUE (blocker_id, blocked_id)
);
CREATE INDEX card_dependencies_blocked ON card_dependencies(blocked_id, blocker_id);
-- A link from a card to a card, a note, a milestone or a URL (stored only: nothing follows it). One target column is
-- set, by target_type; a link goes with its target card, note or milestone.
CREATE TABLE entity_links (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('relates_to', 'duplicates', 'parent_of')),
  source_card_id TEXT NOT NULL REFERENCES cards(id) ON DELETE CASCADE,
  target_type TEXT NOT NULL CHECK (target_type IN ('card', 'note', 'milestone', 'url')),
  target_card_id TEXT REFERENCES cards(id) ON DELETE CASCADE,
  target_note_id TEXT REFERENCES notes(id) ON DELETE CASCADE,
  target_milestone_id TEXT REFERENCES milestones(id) ON DELETE CASCADE,
  url TEXT,
  title TEXT,
  created_by TEXT REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  CHECK (kind <> 'parent_of' OR target_type = 'card')
);
CREATE UNIQUE INDEX entity_links_unique ON entity_links(source_card_id, kind, target_type, COALESCE(target_card_id, target_note_id, target_milestone_id, url));
CREATE UNIQUE INDEX entity_links_one_parent ON entity_links(target_card_id) WHERE kind = 'parent_of';
CREATE INDEX entity_links_target_card ON entity_links(target_card_id) WHERE target_card_id IS NOT NULL;
CREATE INDEX entity_links_target_note ON entity_links(target_note_id) WHERE target_note_id IS NOT NULL;`

/**
 * Version 16: one store for every file the server keeps. `files` gains note and incoming-request owners, the content
 * type, the sha256 and `complete`, and loses its bytes to `file_chunks` (1 MB each); `incoming_files` moves into it.
 * SQLite computes the sha256 with `taskd_sha256` (src/db/connection.ts); PostgreSQL with its own `sha256`.
 */
const fileStore = (blob: string, big: string) => `CREATE TABLE files (
  id TEXT PRIMARY KEY,
  card_id TEXT REFERENCES cards(id) ON DELETE CASCADE,
  note_id TEXT REFERENCES notes(id) ON DELETE CASCADE,
  request_id TEXT REFERENCES incoming_requests(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  content_type TEXT NOT NULL,
  size ${big} NOT NULL,
  sha256 TEXT NOT NULL,          -- hex, of the whole file (its ETag)
  complete INTEGER NOT NULL DEFAULT 0,
  created_by TEXT REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX files_card ON files(card_id, created_at) WHERE card_id IS NOT NULL;
CREATE INDEX files_note ON files(note_id, created_at) WHERE note_id IS NOT NULL;
CREATE INDEX files_request ON files(request_id) WHERE request_id IS NOT NULL;
CREATE INDEX files_incomplete ON files(created_at) WHERE complete = 0;
CREATE TABLE file_chunks (
  file_id TEXT NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,          -- 0, 1, ...: chunk n holds bytes n MB to (n + 1) MB of the file
  data ${blob} NOT NULL,
  PRIMARY KEY (file_id, seq)
);`
const FILE_STORE_SQLITE = `ALTER TABLE files RENAME TO files_v15;
DROP INDEX files_card;
${fileStore('BLOB', 'INTEGER')}
INSERT INTO files (id, card_id, note_id, request_id, name, content_type, size, sha256, complete, created_by, created_at)
  SELECT id, card_id, NULL, NULL, name, mime, length(data), taskd_sha256(data), 1, NULL, created_at FROM files_v15;
INSERT INTO files (id, card_id, note_id, request_id, name, content_type, size, sha256, complete, created_by, created_at)
  SELECT f.id, NULL, NULL, f.request_id, f.name, f.type, length(f.data), taskd_sha256(f.data), 1, NULL, r.at
  FROM incoming_files f JOIN incoming_requests r ON r.id = f.request_id;
WITH RECURSIVE old(id, data) AS (SELECT id, data FROM files_v15 UNION ALL SELECT id, data FROM incoming_files),
  n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE (i + 1) * 1048576 < (SELECT coalesce(max(length(data)), 0) FROM old))
INSERT INTO file_chunks (file_id, seq, data)
  SELECT old.id, n.i, substr(old.data, n.i * 1048576 + 1, 1048576) FROM old JOIN n ON n.i * 1048576 < length(old.data);
DROP TABLE files_v15;
DROP TABLE incoming_files;`
const FILE_STORE_POSTGRES = `ALTER TABLE files RENAME TO files_v15;
ALTER INDEX files_pkey RENAME TO files_v15_pkey;
ALTER TABLE files_v15 RENAME CONSTRAINT files_card_id_fkey TO files_v15_card_id_fkey;
DROP INDEX files_card;
${fileStore('BYTEA', 'BIGINT')}
INSERT INTO files (id, card_id, note_id, request_id, name, content_type, size, sha256, complete, created_by, created_at)
  SELECT id, card_id, NULL, NULL, name, mime, length(data), encode(sha256(data), 'hex'), 1, NULL, created_at FROM files_v15;
INSERT INTO files (id, card_id, note_id, request_id, name, content_type, size, sha256, complete, created_by, created_at)
  SELECT f.id, NULL, NULL, f.request_id, f.name, f.type, length(f.data), encode(sha256(f.data), 'hex'), 1, NULL, r.at
  FROM incoming_files f JOIN incoming_requests r ON r.id = f.request_id;
INSERT INTO file_chunks (file_id, seq, data)
  SELECT o.id, n.i, substring(o.data FROM n.i * 1048576 + 1 FOR 1048576)
  FROM (SELECT id, data FROM files_v15 UNION ALL SELECT id, data FROM incoming_files) o
  CROSS JOIN LATERAL generate_series(0, (length(o.data) - 1) / 1048576) AS n(i)
  WHERE length(o.data) > 0;
DROP TABLE files_v15;
DROP TABLE incoming_files;`
/** Custom fields: definitions, select options and the values on cards, in tables shaped for index-served filters and sorts. */
const SAVED_FILTERS = `CREATE TABLE saved_filters (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  resource TEXT NOT NULL DEFAULT 'cards' CHECK (resource IN ('cards')),
  filter TEXT NOT NULL DEFAULT '',
  sort TEXT,
  expand TEXT,
  board_id TEXT REFERENCES boards(id) ON DELETE CASCADE,
  shared INTEGER NOT NULL DEFAULT 0,
  created_by TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX saved_filters_creator ON saved_filters(created_by, board_id);
CREATE INDEX saved_filters_board ON saved_filters(board_id, shared);
ALTER TABLE events ADD COLUMN audience_id TEXT;`

const TEMPLATES = `CREATE TABLE templates (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  content TEXT NOT NULL,
  created_by TEXT REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX templates_name ON templates(name, id);
CREATE TABLE card_templates (
  id TEXT PRIMARY KEY,
  board_id TEXT NOT NULL REFERENCES boards(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  title TEXT NOT NULL DEFAULT '',
  description TEXT NOT NULL DEFAULT '',
  priority INTEGER,
  tags TEXT NOT NULL DEFAULT '[]',
  assignees TEXT NOT NULL DEFAULT '[]',
  checklist TEXT NOT NULL DEFAULT '[]',
  xattr TEXT NOT NULL DEFAULT '{}',
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX card_templates_board ON card_templates(board_id, name);`

/** Forms: a board's public forms, each submission a new card (their fields one JSON array). */
const FORMS = `CREATE TABLE forms (
  id TEXT PRIMARY KEY,
  board_id TEXT NOT NULL REFERENCES boards(id) ON DELETE CASCADE,
  list_id TEXT REFERENCES lists(id) ON DELETE SET NULL,
  name TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  slug TEXT NOT NULL UNIQUE,
  open INTEGER NOT NULL DEFAULT 1,
  fields TEXT NOT NULL DEFAULT '[]',
  thank_you TEXT NOT NULL DEFAULT '',
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX forms_board ON forms(board_id, name);
CREATE INDEX forms_list ON forms(list_id);`
/** Git hosts and pipelines: connections (secrets sealed apart), repositories with board rules, linked resources, CI runs. */
const gitHosts = (withoutRowid: string) => `CREATE TABLE git_connections (
  id TEXT PRIMARY KEY,
  provider TEXT NOT NULL CHECK (provider IN ('github', 'gitlab', 'gitea')),
  name TEXT NOT NULL,
  created_by TEXT REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX git_connections_name ON git_connections(name, id);
CREATE TABLE git_connection_secrets (
  connection_id TEXT PRIMARY KEY REFERENCES git_connections(id) ON DELETE CASCADE,
  secret_enc TEXT NOT NULL       -- sealed (AES-256-GCM) under the master key, bound to the connection's id
);
CREATE TABLE git_repositories (
  id TEXT PRIMARY KEY,
  connection_id TEXT NOT NULL REFERENCES git_connections(id) ON DELETE CASCADE,
  full_name TEXT NOT NULL,
  url TEXT NOT NULL,
  board_id TEXT REFERENCES boards(id) ON DELETE SET NULL,
  rules TEXT NOT NULL DEFAULT '[]',
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX git_repositories_name ON git_repositories(connection_id, lower(full_name));
CREATE INDEX git_repositories_full_name ON git_repositories(lower(full_name));
CREATE INDEX git_repositories_board ON git_repositories(board_id);
CREATE TABLE git_resources (
  id TEXT PRIMARY KEY,
  repository_id TEXT NOT NULL REFERENCES git_repositories(id) ON DELETE CASCADE,
  kind TEXT NOT NULL CHECK (kind IN ('branch', 'commit', 'pull_request')),
  ref TEXT NOT NULL,             -- the branch name, the commit's full SHA, the pull (merge) request's number
  title TEXT NOT NULL,
  url TEXT NOT NULL,
  state TEXT NOT NULL,
  author TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX git_resources_ref ON git_resources(repository_id, kind, ref);
CREATE INDEX git_resources_updated ON git_resources(updated_at, id);
CREATE TABLE git_resource_cards (
  resource_id TEXT NOT NULL REFERENCES git_resources(id) ON DELETE CASCADE,
  card_id TEXT NOT NULL REFERENCES cards(id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  PRIMARY KEY (resource_id, card_id)
)${withoutRowid};
CREATE INDEX git_resource_cards_card ON git_resource_cards(card_id, resource_id);
CREATE TABLE pipelines (
  id TEXT PRIMARY KEY,
  repository_id TEXT NOT NULL REFERENCES git_repositories(id) ON DELETE CASCADE,
  provider_id TEXT NOT NULL,     -- the CI's own id of the run (unique per repository)
  name TEXT NOT NULL,
  branch TEXT,
  commit_sha TEXT,
  status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'success', 'failure', 'canceled')),
  url TEXT,
  started_at TEXT,
  finished_at TEXT,
  created_by TEXT REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX pipelines_provider ON pipelines(repository_id, provider_id);
CREATE INDEX pipelines_updated ON pipelines(updated_at, id);
CREATE TABLE pipeline_cards (
  pipeline_id TEXT NOT NULL REFERENCES pipelines(id) ON DELETE CASCADE,
  card_id TEXT NOT NULL REFERENCES cards(id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  PRIMARY KEY (pipeline_id, card_id)
)${withoutRowid};
CREATE INDEX pipeline_cards_card ON pipeline_cards(card_id, pipeline_id);`

const customFields = (real: string, withoutRowid: string) => `CREATE TABLE xattr_fields (
  id TEXT PRIMARY KEY,
  board_id TEXT NOT NULL REFERENCES boards(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  key TEXT NOT NULL,
  type TEXT NOT NULL,
  required INTEGER NOT NULL DEFAULT 0,
  position ${real} NOT NULL,
  rollup TEXT,                   -- JSON { field, over, fn } of a rollup field
  formula TEXT,                  -- the expression of a formula field
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (board_id, key)
);
CREATE INDEX xattr_fields_key ON xattr_fields(key, board_id);
CREATE TABLE xattr_options (
  id TEXT PRIMARY KEY,
  field_id TEXT NOT NULL REFERENCES xattr_fields(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  color TEXT,
  position INTEGER NOT NULL
);
CREATE INDEX xattr_options_field ON xattr_options(field_id, position);
CREATE TABLE card_xattr (
  card_id TEXT NOT NULL REFERENCES cards(id) ON DELETE CASCADE,
  field_id TEXT NOT NULL REFERENCES xattr_fields(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  num ${real},
  str TEXT,
  PRIMARY KEY (card_id, field_id, seq)
)${withoutRowid};
CREATE INDEX card_xattr_num ON card_xattr(field_id, num, card_id);
CREATE INDEX card_xattr_str ON card_xattr(field_id, str, card_id);`

const EVENT_COMMIT_ORDER = (bigint: string) => `ALTER TABLE events ADD COLUMN commit_seq ${bigint};
UPDATE events SET commit_seq = seq;
CREATE UNIQUE INDEX events_commit_seq ON events(commit_seq);
CREATE INDEX events_uncommitted ON events(seq) WHERE commit_seq IS NULL;`
/** Secret rotation: the secret before the last rotation and until when it still signs, beside the new one. */
const SECRET_ROTATION = `ALTER TABLE webhooks ADD COLUMN previous_secret_enc TEXT;
ALTER TABLE webhooks ADD COLUMN previous_secret_until TEXT;
ALTER TABLE signing_secrets ADD COLUMN previous_value_enc TEXT;
ALTER TABLE signing_secrets ADD COLUMN previous_until TEXT;`
/** The search index as schema.sql makes it (its migration step adds its rows). */
const SQLITE_SEARCH_SCHEMA = `CREATE TABLE search_docs (
  id INTEGER PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('card', 'comment', 'note')),
  record_id TEXT NOT NULL,
  UNIQUE (kind, record_id)
);
CREATE VIRTUAL TABLE search_fts USING fts5(title, body, scope, tokenize = 'unicode61 remove_diacritics 2');
CREATE TRIGGER cards_search_insert AFTER INSERT ON cards BEGIN
  INSERT INTO search_docs (kind, record_id) VALUES ('card', new.id);
  INSERT INTO search_fts (rowid, title, body, scope)
    SELECT id, new.title, new.description, 'kcard ' || CASE WHEN new.trashed = 0 THEN 'b' || new.board_id ELSE 'hidden' END
    FROM search_docs WHERE kind = 'card' AND record_id = new.id;
END;
CREATE TRIGGER cards_search_update AFTER UPDATE OF title, description, board_id, trashed ON cards
  WHEN old.title IS NOT new.title OR old.description IS NOT new.description OR old.board_id IS NOT new.board_id OR old.trashed IS NOT new.trashed
BEGIN
  UPDATE search_fts SET title = new.title, body = new.description,
      scope = 'kcard ' || CASE WHEN new.trashed = 0 THEN 'b' || new.board_id ELSE 'hidden' END
    WHERE rowid = (SELECT id FROM search_docs WHERE kind = 'card' AND record_id = new.id);
  UPDATE search_fts SET scope = 'kcomment ' || CASE WHEN new.trashed = 0 THEN 'b' || new.board_id ELSE 'hidden' END
    WHERE (old.board_id IS NOT new.board_id OR old.trashed IS NOT new.trashed) AND rowid IN (
      SELECT search_docs.id FROM comments JOIN search_docs ON search_docs.kind = 'comment' AND search_docs.record_id = comments.id
      WHERE comments.card_id = new.id);
END;
CREATE TRIGGER cards_search_delete AFTER DELETE ON cards BEGIN
  DELETE FROM search_fts WHERE rowid = (SELECT id FROM search_docs WHERE kind = 'card' AND record_id = old.id);
  DELETE FROM search_docs WHERE kind = 'card' AND record_id = old.id;
END;
CREATE TRIGGER comments_search_insert AFTER INSERT ON comments BEGIN
  INSERT INTO search_docs (kind, record_id) VALUES ('comment', new.id);
  INSERT INTO search_fts (rowid, title, body, scope)
    SELECT search_docs.id, '', new.body, 'kcomment ' || CASE WHEN cards.trashed = 0 THEN 'b' || cards.board_id ELSE 'hidden' END
    FROM search_docs, cards WHERE search_docs.kind = 'comment' AND search_docs.record_id = new.id AND cards.id = new.card_id;
END;
CREATE TRIGGER comments_search_update AFTER UPDATE OF body, card_id ON comments
  WHEN old.body IS NOT new.body OR old.card_id IS NOT new.card_id
BEGIN
  UPDATE search_fts SET body = new.body,
      scope = (SELECT 'kcomment ' || CASE WHEN trashed = 0 THEN 'b' || board_id ELSE 'hidden' END FROM cards WHERE id = new.card_id)
    WHERE rowid = (SELECT id FROM search_docs WHERE kind = 'comment' AND record_id = new.id);
END;
CREATE TRIGGER comments_search_delete AFTER DELETE ON comments BEGIN
  DELETE FROM search_fts WHERE rowid = (SELECT id FROM search_docs WHERE kind = 'comment' AND record_id = old.id);
  DELETE FROM search_docs WHERE kind = 'comment' AND record_id = old.id;
END;
CREATE TRIGGER notes_search_insert AFTER INSERT ON notes BEGIN
  INSERT INTO search_docs (kind, record_id) VALUES ('note', new.id);
  INSERT INTO search_fts (rowid, title, body, scope)
    SELECT id, new.title, new.body, 'knote ' || CASE WHEN new.board_id IS NULL THEN 'nob' || COALESCE(' o' || new.created_by, '') ELSE 'b' || new.board_id END
    FROM search_docs WHERE kind = 'note' AND record_id = new.id;
END;
CREATE TRIGGER notes_search_update AFTER UPDATE OF title, body, board_id, created_by ON notes
  WHEN old.title IS NOT new.title OR old.body IS NOT new.body OR old.board_id IS NOT new.board_id OR old.created_by IS NOT new.created_by
BEGIN
  UPDATE search_fts SET title = new.title, body = new.body,
      scope = 'knote ' || CASE WHEN new.board_id IS NULL THEN 'nob' || COALESCE(' o' || new.created_by, '') ELSE 'b' || new.board_id END
    WHERE rowid = (SELECT id FROM search_docs WHERE kind = 'note' AND record_id = new.id);
END;
CREATE TRIGGER notes_search_delete AFTER DELETE ON notes BEGIN
  DELETE FROM search_fts WHERE rowid = (SELECT id FROM search_docs WHERE kind = 'note' AND record_id = old.id);
  DELETE FROM search_docs WHERE kind = 'note' AND record_id = old.id;
END;`
/** The search index as schema.pg.sql makes it, less the GIN index, made once the rows are in. */
const POSTGRES_SEARCH_SCHEMA = `CREATE TABLE search_docs (
  kind TEXT NOT NULL CHECK (kind IN ('card', 'comment', 'note')),
  record_id TEXT NOT NULL,
  board_id TEXT,
  owner_id TEXT,
  hidden INTEGER NOT NULL DEFAULT 0,
  tsv tsvector NOT NULL,
  PRIMARY KEY (kind, record_id)
);
CREATE FUNCTION taskd_search_doc() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  doc tsvector;
  doc_board TEXT;
  doc_owner TEXT;
  doc_hidden INTEGER := 0;
BEGIN
  IF TG_OP = 'DELETE' THEN
    DELETE FROM search_docs WHERE search_docs.kind = TG_ARGV[0] AND search_docs.record_id = OLD.id;
    RETURN NULL;
  ELSIF TG_ARGV[0] = 'card' THEN
    doc_board := NEW.board_id;
    doc_hidden := NEW.trashed;
    IF TG_OP = 'UPDATE' AND (OLD.board_id IS DISTINCT FROM NEW.board_id OR OLD.trashed IS DISTINCT FROM NEW.trashed) THEN
      UPDATE search_docs SET board_id = NEW.board_id, hidden = NEW.trashed
        WHERE search_docs.kind = 'comment' AND search_docs.record_id IN (SELECT comments.id FROM comments WHERE comments.card_id = NEW.id);
    END IF;
    IF TG_OP = 'UPDATE' AND OLD.title = NEW.title AND OLD.description = NEW.description THEN
      UPDATE search_docs SET board_id = doc_board, hidden = doc_hidden WHERE search_docs.kind = 'card' AND search_docs.record_id = NEW.id;
      RETURN NULL;
    END IF;
    doc := setweight(to_tsvector('simple', taskd_fold(NEW.title)), 'A') || setweight(to_tsvector('simple', taskd_fold(left(NEW.description, 100000))), 'B');
  ELSIF TG_ARGV[0] = 'comment' THEN
    SELECT cards.board_id, cards.trashed INTO doc_board, doc_hidden FROM cards WHERE cards.id = NEW.card_id FOR SHARE;
    doc := setweight(to_tsvector('simple', taskd_fold(left(NEW.body, 100000))), 'B');
  ELSE
    doc_board := NEW.board_id;
    doc_owner := NEW.created_by;
    doc := setweight(to_tsvector('simple', taskd_fold(NEW.title)), 'A') || setweight(to_tsvector('simple', taskd_fold(left(NEW.body, 100000))), 'B');
  END IF;
  INSERT INTO search_docs (kind, record_id, board_id, owner_id, hidden, tsv) VALUES (TG_ARGV[0], NEW.id, doc_board, doc_owner, doc_hidden, doc)
    ON CONFLICT ON CONSTRAINT search_docs_pkey
    DO UPDATE SET board_id = EXCLUDED.board_id, owner_id = EXCLUDED.owner_id, hidden = EXCLUDED.hidden, tsv = EXCLUDED.tsv;
  RETURN NULL;
END $$;
CREATE TRIGGER cards_search_insert AFTER INSERT ON cards FOR EACH ROW EXECUTE FUNCTION taskd_search_doc('card');
CREATE TRIGGER cards_search_update AFTER UPDATE OF title, description, board_id, trashed ON cards FOR EACH ROW
  WHEN (OLD.title IS DISTINCT FROM NEW.title OR OLD.description IS DISTINCT FROM NEW.description OR OLD.board_id IS DISTINCT FROM NEW.board_id
    OR OLD.trashed IS DISTINCT FROM NEW.trashed)
  EXECUTE FUNCTION taskd_search_doc('card');
CREATE TRIGGER cards_search_delete AFTER DELETE ON cards FOR EACH ROW EXECUTE FUNCTION taskd_search_doc('card');
CREATE TRIGGER comments_search_insert AFTER INSERT ON comments FOR EACH ROW EXECUTE FUNCTION taskd_search_doc('comment');
CREATE TRIGGER comments_search_update AFTER UPDATE OF body, card_id ON comments FOR EACH ROW
  WHEN (OLD.body IS DISTINCT FROM NEW.body OR OLD.card_id IS DISTINCT FROM NEW.card_id) EXECUTE FUNCTION taskd_search_doc('comment');
CREATE TRIGGER comments_search_delete AFTER DELETE ON comments FOR EACH ROW EXECUTE FUNCTION taskd_search_doc('comment');
CREATE TRIGGER notes_search_insert AFTER INSERT ON notes FOR EACH ROW EXECUTE FUNCTION taskd_search_doc('note');
CREATE TRIGGER notes_search_update AFTER UPDATE OF title, body, board_id, created_by ON notes FOR EACH ROW
  WHEN (OLD.title IS DISTINCT FROM NEW.title OR OLD.body IS DISTINCT FROM NEW.body OR OLD.board_id IS DISTINCT FROM NEW.board_id
    OR OLD.created_by IS DISTINCT FROM NEW.created_by)
  EXECUTE FUNCTION taskd_search_doc('note');
CREATE TRIGGER notes_search_delete AFTER DELETE ON notes FOR EACH ROW EXECUTE FUNCTION taskd_search_doc('note');`

/**
 * Full-text search (step 24): SQLite's FTS5 table with its rowid map and PostgreSQL's tsvector rows, each kept by
 * triggers (the text is the same as the schema files'), then filled from the cards, comments and notes there are.
 */
const SEARCH_SQLITE = `${SQLITE_SEARCH_SCHEMA}
INSERT INTO search_docs (kind, record_id) SELECT 'card', id FROM cards ORDER BY created_at, id;
INSERT INTO search_docs (kind, record_id) SELECT 'comment', id FROM comments ORDER BY created_at, id;
INSERT INTO search_docs (kind, record_id) SELECT 'note', id FROM notes ORDER BY created_at, id;
INSERT INTO search_fts (rowid, title, body, scope)
  SELECT search_docs.id, cards.title, cards.description, 'kcard ' || CASE WHEN cards.trashed = 0 THEN 'b' || cards.board_id ELSE 'hidden' END
  FROM search_docs JOIN cards ON search_docs.kind = 'card' AND cards.id = search_docs.record_id;
INSERT INTO search_fts (rowid, title, body, scope)
  SELECT search_docs.id, '', comments.body, 'kcomment ' || CASE WHEN cards.trashed = 0 THEN 'b' || cards.board_id ELSE 'hidden' END
  FROM search_docs JOIN comments ON search_docs.kind = 'comment' AND comments.id = search_docs.record_id JOIN cards ON cards.id = comments.card_id;
INSERT INTO search_fts (rowid, title, body, scope)
  SELECT search_docs.id, notes.title, notes.body,
    'knote ' || CASE WHEN notes.board_id IS NULL THEN 'nob' || COALESCE(' o' || notes.created_by, '') ELSE 'b' || notes.board_id END
  FROM search_docs JOIN notes ON search_docs.kind = 'note' AND notes.id = search_docs.record_id;`
const SEARCH_POSTGRES = `${POSTGRES_SEARCH_SCHEMA}
INSERT INTO search_docs (kind, record_id, board_id, owner_id, hidden, tsv)
  SELECT 'card', id, board_id, NULL, trashed,
    setweight(to_tsvector('simple', taskd_fold(title)), 'A') || setweight(to_tsvector('simple', taskd_fold(left(description, 100000))), 'B')
  FROM cards;
INSERT INTO search_docs (kind, record_id, board_id, owner_id, hidden, tsv)
  SELECT 'comment', comments.id, cards.board_id, NULL, cards.trashed, setweight(to_tsvector('simple', taskd_fold(left(comments.body, 100000))), 'B')
  FROM comments JOIN cards ON cards.id = comments.card_id;
INSERT INTO search_docs (kind, record_id, board_id, owner_id, hidden, tsv)
  SELECT 'note', id, board_id, created_by, 0,
    setweight(to_tsvector('simple', taskd_fold(title)), 'A') || setweight(to_tsvector('simple', taskd_fold(left(body, 100000))), 'B')
  FROM notes;
CREATE INDEX search_docs_tsv ON search_docs USING gin (tsv);`

/** Sign-in for people: passwords, browser sessions and single-use login links (step 27). */
const SIGN_IN = `CREATE TABLE user_passwords (
  user_id TEXT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  hash TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE TABLE sessions (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  hash TEXT NOT NULL UNIQUE,
  via TEXT NOT NULL CHECK (via IN ('password', 'link')),
  user_agent TEXT,
  address TEXT,
  created_at TEXT NOT NULL,
  last_used_at TEXT NOT NULL,
  expires_at TEXT NOT NULL
);
CREATE INDEX sessions_user ON sessions(user_id, created_at);
CREATE TABLE login_links (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  hash TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  used_at TEXT
);
CREATE INDEX login_links_user ON login_links(user_id);`
/** The audit log (step 28), the same SQL on both dialects. */
const AUDIT_LOG = `CREATE TABLE audit_log (
  id TEXT PRIMARY KEY,
  action TEXT NOT NULL,          -- <target type>.<verb>: token.created, board.member_added, webhook.paused, ...
  actor_type TEXT NOT NULL,      -- user, agent, automation, incoming_webhook, cli, system
  actor_id TEXT,                 -- NULL for the command line and taskd itself
  actor_name TEXT NOT NULL,
  target_type TEXT NOT NULL,
  target_id TEXT,
  target_name TEXT,
  board_id TEXT,                 -- no foreign key: the entry outlives the board
  details TEXT NOT NULL DEFAULT '{}',
  request_id TEXT,               -- the X-Request-Id of the API request that did it
  created_at TEXT NOT NULL
);
CREATE INDEX audit_log_created ON audit_log(created_at, id);
CREATE INDEX audit_log_action ON audit_log(action, created_at, id);
CREATE INDEX audit_log_actor ON audit_log(actor_id, created_at, id) WHERE actor_id IS NOT NULL;
CREATE INDEX audit_log_target ON audit_log(target_id, created_at, id) WHERE target_id IS NOT NULL;`
const WEBHOOK_HEALTH = `ALTER TABLE webhooks ADD COLUMN failures INTEGER NOT NULL DEFAULT 0;
ALTER TABLE webhooks ADD COLUMN failing_since TEXT;
ALTER TABLE outbox ADD COLUMN redelivery_of TEXT;`
const INBOX_INDEXES = `CREATE INDEX inbox_items_user ON inbox_items(user_id, created_at);
CREATE INDEX inbox_items_unread ON inbox_items(user_id) WHERE read_at IS NULL;
CREATE INDEX inbox_items_card ON inbox_items(card_id);
CREATE INDEX inbox_items_comment ON inbox_items(comment_id) WHERE comment_id IS NOT NULL;
CREATE INDEX inbox_items_webhook ON inbox_items(webhook_id) WHERE webhook_id IS NOT NULL;`
/** SQLite changes a column's NOT NULL and a CHECK only by making the table again (the old one renamed away, as in 16). */
const AUDIT_SQLITE = `${WEBHOOK_HEALTH}
ALTER TABLE inbox_items RENAME TO inbox_items_v21;
DROP INDEX inbox_items_user;
DROP INDEX inbox_items_unread;
DROP INDEX inbox_items_card;
DROP INDEX inbox_items_comment;
CREATE TABLE inbox_items (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  kind TEXT NOT NULL CHECK (kind IN ('assigned', 'mentioned', 'commented', 'completed', 'watching', 'question', 'webhook_paused')),
  card_id TEXT REFERENCES cards(id) ON DELETE CASCADE, -- NULL for an item about no task (webhook_paused)
  comment_id TEXT REFERENCES comments(id) ON DELETE CASCADE,
  question_id TEXT,              -- kind question: the agent's question
  actor TEXT NOT NULL,           -- JSON { id, name, kind } of who caused it
  read_at TEXT,
  created_at TEXT NOT NULL,
  webhook_id TEXT REFERENCES webhooks(id) ON DELETE CASCADE -- kind webhook_paused: the subscription taskd paused
);
INSERT INTO inbox_items (id, user_id, kind, card_id, comment_id, question_id, actor, read_at, created_at)
  SELECT id, user_id, kind, card_id, comment_id, question_id, actor, read_at, created_at FROM inbox_items_v21;
DROP TABLE inbox_items_v21;
${INBOX_INDEXES}
${AUDIT_LOG}`
const AUDIT_POSTGRES = `${WEBHOOK_HEALTH}
ALTER TABLE inbox_items ALTER COLUMN card_id DROP NOT NULL;
ALTER TABLE inbox_items DROP CONSTRAINT inbox_items_kind_check;
ALTER TABLE inbox_items ADD CONSTRAINT inbox_items_kind_check
  CHECK (kind IN ('assigned', 'mentioned', 'commented', 'completed', 'watching', 'question', 'webhook_paused'));
ALTER TABLE inbox_items ADD COLUMN webhook_id TEXT REFERENCES webhooks(id) ON DELETE CASCADE;
CREATE INDEX inbox_items_webhook ON inbox_items(webhook_id) WHERE webhook_id IS NOT NULL;
${AUDIT_LOG}`

const CARD_INDEXES = `DROP INDEX cards_board_flags;
DROP INDEX cards_milestone;
CREATE INDEX cards_milestone ON cards(milestone_id) WHERE milestone_id IS NOT NULL;`

/** Steps after the base schema; entry i brings version i+1 to i+2. */
const MIGRATIONS: Migration[] = [
  // 2: case-insensitive lookups as lower(...) = lower(...) on both dialects, with matching expression indexes
  // (schema.pg.sql has had them from the start).
  {
    sqlite: `CREATE INDEX users_email_lower ON users(lower(email));
             DROP INDEX tags_name;
             CREATE INDEX tags_name ON tags(lower(name));`,
    postgres: '',
  },
  // 3: the request rate window of each token, in the database so that every process counts against one budget.
  {
    sqlite: `ALTER TABLE tokens ADD COLUMN rate_window_start INTEGER NOT NULL DEFAULT 0;
             ALTER TABLE tokens ADD COLUMN rate_count INTEGER NOT NULL DEFAULT 0;`,
    postgres: `ALTER TABLE tokens ADD COLUMN rate_window_start BIGINT NOT NULL DEFAULT 0;
               ALTER TABLE tokens ADD COLUMN rate_count INTEGER NOT NULL DEFAULT 0;`,
  },
  // 4: key prefixes reserved for good. Existing boards reserve theirs, the oldest first where two share one (those keep
  // it; a new board can no longer take a prefix in use).
  {
    sqlite: `CREATE TABLE key_prefixes (
  prefix TEXT PRIMARY KEY,
  board_id TEXT NOT NULL,        -- no foreign key: the reservation outlives the board
  created_at TEXT NOT NULL
);
CREATE INDEX key_prefixes_board ON key_prefixes(board_id);
INSERT OR IGNORE INTO key_prefixes (prefix, board_id, created_at) SELECT key_prefix, id, created_at FROM boards ORDER BY created_at, id;`,
    postgres: `CREATE TABLE key_prefixes (
  prefix TEXT PRIMARY KEY,
  board_id TEXT NOT NULL,        -- no foreign key: the reservation outlives the board
  created_at TEXT NOT NULL
);
CREATE INDEX key_prefixes_board ON key_prefixes(board_id);
INSERT INTO key_prefixes (prefix, board_id, created_at) SELECT key_prefix, id, created_at FROM boards ORDER BY created_at, id ON CONFLICT DO NOTHING;`,
  },
  // 5: Unicode case folding for `~` and names. SQLite gets taskd_fold from the connection (src/db/sqlite.ts).
  {
    sqlite: '',
    postgres: `CREATE FUNCTION taskd_fold(text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT lower($1 COLLATE "und-x-icu") $$;`,
  },
  // 6: board roles and the board trash. The creator of each board becomes its admin; a board whose creator left gets its
  // longest-standing member as admin, so every board with members keeps someone (besides owners and admins) to manage it.
  { sqlite: BOARD_RIGHTS, postgres: BOARD_RIGHTS },
  // 7: signing secrets (write-only keys for signed calls taskd makes) and incoming webhook endpoints.
  {
    sqlite: `${SIGNING_SECRETS}\n${INCOMING_ENDPOINTS}\n${incomingBoards(' WITHOUT ROWID')}\n${incomingRequests('INTEGER NOT NULL')}\n${incomingFiles('BLOB')}`,
    postgres: `${SIGNING_SECRETS}\n${INCOMING_ENDPOINTS}\n${incomingBoards('')}\n${incomingRequests('BIGINT GENERATED ALWAYS AS IDENTITY')}\n${incomingFiles('BYTEA')}`,
  },
  // 8: automations and their durable runs.
  { sqlite: automations('INTEGER', 'INTEGER NOT NULL', ' WITHOUT ROWID'), postgres: automations('BIGINT', 'BIGINT GENERATED ALWAYS AS IDENTITY', '') },
  // 9: working together on a card: comments (with mentions), checklists, time entries, timesheet approvals, billing
  // rates, notes with folders and publications, and each user's inbox.
  { sqlite: collaboration('REAL', ' WITHOUT ROWID'), postgres: collaboration('DOUBLE PRECISION', '') },
  // 10: how often a run was claimed, so a run that keeps failing unexpectedly (or crashing its process) ends.
  { sqlite: RUN_CLAIMS, postgres: RUN_CLAIMS },
  // 11: agents (a profile per agent user), their workflows per board, kickoffs delivered in the background, runs with
  // their activity, and the questions agents ask.
  { sqlite: agents('INTEGER', 'INTEGER NOT NULL', ' WITHOUT ROWID'), postgres: agents('BIGINT', 'BIGINT GENERATED ALWAYS AS IDENTITY', '') },
  // 12: every sortable field of a board's cards served by an index in page order, with the tie-break (a page stops at
  // its end instead of sorting every match; counts read only the index); across boards the common orders.
  { sqlite: CARD_ORDER_INDEXES, postgres: CARD_ORDER_INDEXES },
  // 13: across boards too, every sortable field in page order with the tie-break (owners and admins read a page from
  // these and stop at its end); the dates most cards lack break ties by creation time (a new card's entry is appended).
  { sqlite: CARD_GLOBAL_ORDER_INDEXES, postgres: CARD_GLOBAL_ORDER_INDEXES },
  // 14: the last card number given under each prefix a board left, so an old key names only cards numbered before the
  // change (the prefixes boards have already left get their board's last number now: no card numbered later matches);
  // and why a subscription was made inactive by taskd.
  { sqlite: KEYS_AND_PAUSES, postgres: KEYS_AND_PAUSES },
  // 15: causal chains (what led to a run or a kickoff, so an automation cannot start itself again through it), the
  // runs-per-minute count and pause reason of automations, and claim long polls visible to every process.
  { sqlite: causalChains('INTEGER', ' WITHOUT ROWID'), postgres: causalChains('BIGINT', '') },
  // 16: one chunked store for every file (attachments of cards and notes, files of incoming requests).
  { sqlite: FILE_STORE_SQLITE, postgres: FILE_STORE_POSTGRES },
  // 17: planning structures: board statuses, milestones, folders, and groups of users in place of the teams.
  { sqlite: planning('REAL', ' WITHOUT ROWID'), postgres: planning('DOUBLE PRECISION', '') },
  // 18: planning links: a card's parent (cards.parent_id, in step with its parent_of link), dependencies between cards,
  // and links from a card to a card, a note, a milestone or a URL.
  { sqlite: PLANNING_LINKS, postgres: PLANNING_LINKS },
  // 19: custom fields (/v1/xattr): a board's field definitions, their select options and the values on cards (one row
  // per value, a multi_select's per option), indexed by (field, value, card) so filters and sorts read them in order.
  { sqlite: customFields('REAL', ' WITHOUT ROWID'), postgres: customFields('DOUBLE PRECISION', '') },
  // 20: templates: workspace-level board templates (their content one JSON document) and card templates per board.
  { sqlite: TEMPLATES, postgres: TEMPLATES },
  // 21: saved filters (a named card filter, private or shared on a board or the workspace), and the one user an event
  // is for when only they may see it (a private saved filter's events).
  { sqlite: SAVED_FILTERS, postgres: SAVED_FILTERS },
  // 22: the change feed: each event's place in commit order (events.commit_seq), which its cursors count. Events
  // written before are numbered by seq, in which they committed on SQLite (on PostgreSQL, they have all committed).
  { sqlite: EVENT_COMMIT_ORDER('INTEGER'), postgres: EVENT_COMMIT_ORDER('BIGINT') },
  // 23: secret rotation without downtime: a webhook's and a signing secret's previous secret, with the end of its overlap.
  { sqlite: SECRET_ROTATION, postgres: SECRET_ROTATION },
  // 24: full-text search (GET /v1/search): SQLite's FTS5 table search_fts (title, body and the scope words the search
  // matches visibility with) beside search_docs (its rowid's kind and record), PostgreSQL's tsvector rows (with the
  // board, creator and trash the search tests) and a GIN index, both kept by triggers on cards, comments and notes, and
  // built here for the rows there are.
  { sqlite: SEARCH_SQLITE, postgres: SEARCH_POSTGRES },
  // 25: forms (/v1/forms): a board's forms, public at /v1/forms/public/<slug>, each submission a new card.
  { sqlite: FORMS, postgres: FORMS },
  // 26: full-text search on PostgreSQL again, as step 24 now makes it: the board, creator and trash of each row kept
  // beside its tsvector (which the search tests instead of reading the card per match); rebuilt for the rows there are.
  { sqlite: '', postgres: `DROP TABLE IF EXISTS search_docs; DROP FUNCTION IF EXISTS taskd_search_doc() CASCADE;\n${SEARCH_POSTGRES}` },
  // 27: sign-in for people: a password per person, browser sessions and single-use login links.
  { sqlite: SIGN_IN, postgres: SIGN_IN },
  // 28: the audit log; the health of outgoing subscriptions (failures since the last success, paused as `failing`) and
  // redeliveries (the delivery one repeats); inbox items about no task (a subscription taskd paused), naming it.
  { sqlite: AUDIT_SQLITE, postgres: AUDIT_POSTGRES },
  // 29: git hosts (/v1/git: connections with their sealed hook secrets, repositories with board rules, the branches,
  // commits and pull requests that mention cards) and pipelines (/v1/pipelines: CI runs and the cards they concern).
  { sqlite: gitHosts(' WITHOUT ROWID'), postgres: gitHosts('') },
  // 30: fewer indexes on cards, each of which every moved or changed card writes anew: the milestone index holds only
  // cards that have one, and (board_id, completed, archived, trashed), which no query needs beside the per-board sort
  // indexes, goes.
  { sqlite: CARD_INDEXES, postgres: CARD_INDEXES },
]

export const SCHEMA_VERSION = 1 + MIGRATIONS.length

/** The tables and indexes (`type name`) the SQLite steps after `version` drop: a database at that version may hold them. */
export const droppedAfter = (version: number): string[] =>
  MIGRATIONS.slice(Math.max(0, version - 1)).flatMap((m) =>
    [...m.sqlite.matchAll(/DROP (INDEX|TABLE) (?:IF EXISTS )?(\w+)/g)].map((d) => `${d[1].toLowerCase()} ${d[2]}`),
  )

const tooNew = (from: number) => new Error(`database schema version ${from} is newer than this taskd (${SCHEMA_VERSION})`)

export function migrateSqlite(raw: Database.Database): { from: number; to: number } {
  const from = raw.pragma('user_version', { simple: true }) as number
  if (from > SCHEMA_VERSION) throw tooNew(from)
  if (from === SCHEMA_VERSION) return { from, to: from }
  raw
    .transaction(() => {
      if (from === 0) raw.exec(asset('schema.sql').toString())
      else for (let v = from; v < SCHEMA_VERSION; v++) if (MIGRATIONS[v - 1].sqlite) raw.exec(MIGRATIONS[v - 1].sqlite)
      raw.pragma(`user_version = ${SCHEMA_VERSION}`)
    })
    .immediate()
  return { from, to: SCHEMA_VERSION }
}

/** Any number for pg_advisory_xact_lock, the same in every taskd: processes starting together migrate one after another. */
const MIGRATION_LOCK = 0x7461736b // 'task'

export async function migratePostgres(q: Q): Promise<{ from: number; to: number }> {
  // Imported here: SQLite's migration (and a short command that opens the file bare) loads no Kysely.
  const { sql } = await import('kysely')
  return q.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`.execute(trx)
    await sql`CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)`.execute(trx)
    const row = (await sql<{ version: number }>`SELECT version FROM schema_version`.execute(trx)).rows[0]
    const from = row?.version ?? 0
    if (from > SCHEMA_VERSION) throw tooNew(from)
    if (from === SCHEMA_VERSION) return { from, to: from }
    // Without parameters, pg sends the text as one simple query, so a file of many statements runs as it is.
    if (from === 0) await sql.raw(asset('schema.pg.sql').toString()).execute(trx)
    else for (let v = from; v < SCHEMA_VERSION; v++) if (MIGRATIONS[v - 1].postgres) await sql.raw(MIGRATIONS[v - 1].postgres).execute(trx)
    if (row) await sql`UPDATE schema_version SET version = ${SCHEMA_VERSION}`.execute(trx)
    else await sql`INSERT INTO schema_version (version) VALUES (${SCHEMA_VERSION})`.execute(trx)
    return { from, to: SCHEMA_VERSION }
  })
}

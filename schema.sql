-- taskd schema. PRAGMA user_version records the schema version (see src/db/migrate.ts).
-- Times are ISO 8601 UTC strings with milliseconds ('2026-11-21T15:18:30.000Z'), so text order is time order.
-- Booleans are 0/1 integers.

CREATE TABLE workspace (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  created_at TEXT NOT NULL
);

CREATE TABLE users (
  id TEXT PRIMARY KEY,
  email TEXT NOT NULL UNIQUE COLLATE NOCASE,
  name TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
  kind TEXT NOT NULL DEFAULT 'human' CHECK (kind IN ('human', 'agent')),
  created_at TEXT NOT NULL
);
-- Lookups by email compare lower(email) = lower(?), as on PostgreSQL (the column's NOCASE keeps it unique).
CREATE INDEX users_email_lower ON users(lower(email));

CREATE TABLE tokens (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  permission TEXT NOT NULL CHECK (permission IN ('read', 'write', 'full')),
  hash TEXT NOT NULL UNIQUE,
  prefix TEXT NOT NULL,
  expires_at TEXT,
  last_used_at TEXT,
  created_at TEXT NOT NULL,
  -- TASKD_RATE_LIMIT: the token's current one-minute window (epoch ms) and its requests, shared by every process
  rate_window_start INTEGER NOT NULL DEFAULT 0,
  rate_count INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX tokens_user ON tokens(user_id);

-- Groups and teams of users (workspace-wide; owners and admins manage them): `GET /v1/cards?team=` and the filter
-- `team` select the cards assigned to a member; a group's members can be added to a board at once.
CREATE TABLE user_groups (
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
) WITHOUT ROWID;
CREATE INDEX user_group_members_user ON user_group_members(user_id, group_id);

-- Folders of boards, workspace-wide, nested at most 5 deep (src/resources/folders); every member sees every folder.
CREATE TABLE folders (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  parent_id TEXT REFERENCES folders(id),
  position REAL NOT NULL,
  created_by TEXT REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX folders_parent ON folders(parent_id, position);

CREATE TABLE boards (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  key_prefix TEXT NOT NULL,
  next_key INTEGER NOT NULL DEFAULT 1,
  created_by TEXT REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  -- In the trash since trashed_at (null: not trashed), deleted for good from purge_at on (30 days later, or at once for
  -- ?permanent=true) by purgeTrashedBoards (src/resources/boards/service.ts); past purge_at it can no longer be restored.
  trashed_at TEXT,
  trashed_by TEXT REFERENCES users(id) ON DELETE SET NULL,
  purge_at TEXT,
  folder_id TEXT REFERENCES folders(id) ON DELETE SET NULL
);
CREATE INDEX boards_folder ON boards(folder_id);
CREATE INDEX boards_purge ON boards(purge_at) WHERE purge_at IS NOT NULL;

-- Every key prefix a board has had, reserved for good: no other board may take it, also after the board is deleted, so a
-- card key is never issued twice; a renamed board's old keys still find its cards (filter key = "OLD-3").
CREATE TABLE key_prefixes (
  prefix TEXT PRIMARY KEY,
  board_id TEXT NOT NULL,        -- no foreign key: the reservation outlives the board
  created_at TEXT NOT NULL,
  -- the last card number the board gave while this was not yet its prefix again: keys <prefix>-<n> with n above it
  -- never existed (NULL: the board's prefix now, or left before this was recorded)
  last_num INTEGER
);
CREATE INDEX key_prefixes_board ON key_prefixes(board_id);

CREATE TABLE board_members (
  board_id TEXT NOT NULL REFERENCES boards(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  -- board admins (the creator first) change membership, rename, trash and restore the board
  role TEXT NOT NULL DEFAULT 'member' CHECK (role IN ('admin', 'member')),
  PRIMARY KEY (board_id, user_id)
) WITHOUT ROWID;
CREATE INDEX board_members_user ON board_members(user_id, board_id);

-- A board's statuses (workflow states): lists bound to one take its category.
CREATE TABLE board_statuses (
  id TEXT PRIMARY KEY,
  board_id TEXT NOT NULL REFERENCES boards(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  category TEXT NOT NULL CHECK (category IN ('backlog', 'unstarted', 'started', 'completed', 'canceled')),
  color TEXT,
  position REAL NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX board_statuses_board ON board_statuses(board_id, position);
CREATE UNIQUE INDEX board_statuses_name ON board_statuses(board_id, lower(name));

-- A board's milestones; cards name theirs in cards.milestone_id.
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

CREATE TABLE lists (
  id TEXT PRIMARY KEY,
  board_id TEXT NOT NULL REFERENCES boards(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  position REAL NOT NULL,
  category TEXT NOT NULL CHECK (category IN ('backlog', 'unstarted', 'started', 'completed', 'canceled')),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  status_id TEXT REFERENCES board_statuses(id) ON DELETE SET NULL
);
CREATE INDEX lists_board ON lists(board_id, position);
CREATE INDEX lists_status ON lists(status_id);

CREATE TABLE cards (
  id TEXT PRIMARY KEY,
  board_id TEXT NOT NULL REFERENCES boards(id) ON DELETE CASCADE,
  list_id TEXT NOT NULL REFERENCES lists(id),
  key_num INTEGER NOT NULL,
  key TEXT NOT NULL,
  title TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  position REAL NOT NULL,
  priority INTEGER NOT NULL DEFAULT 0 CHECK (priority BETWEEN 0 AND 4),
  start_date TEXT,
  due_date TEXT,
  completed INTEGER NOT NULL DEFAULT 0,
  completed_at TEXT,
  archived INTEGER NOT NULL DEFAULT 0,
  trashed INTEGER NOT NULL DEFAULT 0,
  idempotency_key TEXT,
  created_by TEXT REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  milestone_id TEXT REFERENCES milestones(id) ON DELETE SET NULL,
  parent_id TEXT REFERENCES cards(id) ON DELETE SET NULL,
  UNIQUE (board_id, key_num)
);
-- Most cards have no milestone: only those with one are indexed (a milestone's cards, its deletion's SET NULL).
CREATE INDEX cards_milestone ON cards(milestone_id) WHERE milestone_id IS NOT NULL;
-- Trashing a card clears its idempotency_key, which frees the key for a new card.
CREATE UNIQUE INDEX cards_idempotency ON cards(board_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE INDEX cards_list ON cards(list_id, position);
CREATE INDEX cards_created_by ON cards(created_by);
-- A page of a board's cards is read from an index in its order, up to the page's end: never a sort of every match.
-- One index per sortable field (src/resources/cards/query.ts), each ending in the tie-break (position and the dates
-- most cards lack: the field, created, id; any other field: the field, id); they also serve range filters on their
-- field and count the matches without reading the table. By key: UNIQUE (board_id, key_num). Across boards (owners
-- and admins read a page from these), every sortable field too; `trashed` is read from the row there (as a leading
-- column its two values would mislead the planner's sampled statistics).
CREATE INDEX cards_board_position ON cards(board_id, trashed, position, created_at, id);
CREATE INDEX cards_board_list ON cards(board_id, trashed, list_id, position, created_at, id);
CREATE INDEX cards_board_created ON cards(board_id, trashed, created_at, id);
CREATE INDEX cards_board_updated ON cards(board_id, trashed, updated_at, id);
CREATE INDEX cards_board_title ON cards(board_id, trashed, title, id);
CREATE INDEX cards_board_priority ON cards(board_id, trashed, priority, id);
CREATE INDEX cards_board_due ON cards(board_id, trashed, due_date, created_at, id);
CREATE INDEX cards_board_start ON cards(board_id, trashed, start_date, created_at, id);
CREATE INDEX cards_board_completed_at ON cards(board_id, trashed, completed_at, created_at, id);
CREATE INDEX cards_position ON cards(position, created_at, id);
CREATE INDEX cards_created ON cards(created_at, id);
CREATE INDEX cards_updated ON cards(updated_at, id);
CREATE INDEX cards_priority ON cards(priority, id);
CREATE INDEX cards_due ON cards(due_date, created_at, id);
CREATE INDEX cards_title ON cards(title, id);
CREATE INDEX cards_start ON cards(start_date, created_at, id);
CREATE INDEX cards_completed_at ON cards(completed_at, created_at, id);
CREATE INDEX cards_key ON cards(key_num, id);

CREATE TABLE card_assignees (
  card_id TEXT NOT NULL REFERENCES cards(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  PRIMARY KEY (card_id, user_id)
) WITHOUT ROWID;
CREATE INDEX card_assignees_user ON card_assignees(user_id, card_id);

CREATE TABLE card_watchers (
  card_id TEXT NOT NULL REFERENCES cards(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  PRIMARY KEY (card_id, user_id)
) WITHOUT ROWID;
CREATE INDEX card_watchers_user ON card_watchers(user_id, card_id);

CREATE TABLE tags (
  id TEXT PRIMARY KEY,
  board_id TEXT NOT NULL REFERENCES boards(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  color TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX tags_board_name ON tags(board_id, name COLLATE NOCASE);
-- `tags ~ "bug"` matches by name across boards.
CREATE INDEX tags_name ON tags(lower(name));

CREATE TABLE card_tags (
  card_id TEXT NOT NULL REFERENCES cards(id) ON DELETE CASCADE,
  tag_id TEXT NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
  PRIMARY KEY (card_id, tag_id)
) WITHOUT ROWID;
CREATE INDEX card_tags_tag ON card_tags(tag_id, card_id);


-- Events: one row per thing that happened, with its enriched data (JSON), written in the transaction of the change.
-- commit_seq is the event's place in commit order, which the change feed (GET /v1/events) pages by: here the same as
-- seq (one writer commits in the order it writes); see schema.pg.sql for PostgreSQL, where it is given at COMMIT.
CREATE TABLE events (
  id TEXT PRIMARY KEY,
  seq INTEGER NOT NULL UNIQUE,
  name TEXT NOT NULL,
  board_id TEXT,
  data TEXT NOT NULL,
  created_at TEXT NOT NULL,
  audience_id TEXT,             -- the one user who may see it (a private saved filter's events); NULL: all who see its board
  commit_seq INTEGER
);
CREATE INDEX events_name ON events(name, seq);
CREATE UNIQUE INDEX events_commit_seq ON events(commit_seq);
CREATE INDEX events_uncommitted ON events(seq) WHERE commit_seq IS NULL;

CREATE TABLE webhooks (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  url TEXT NOT NULL,
  method TEXT NOT NULL CHECK (method IN ('POST', 'PUT', 'PATCH')),
  events TEXT NOT NULL,          -- JSON array of names, `family.*` or `*`
  secret_enc TEXT,               -- AES-256-GCM, see src/crypto
  auth_type TEXT NOT NULL DEFAULT 'none' CHECK (auth_type IN ('none', 'bearer', 'basic', 'header')),
  auth_enc TEXT,                 -- encrypted JSON of the credentials
  auth_header_name TEXT,
  headers TEXT NOT NULL DEFAULT '{}',
  active INTEGER NOT NULL DEFAULT 1,
  -- 1: every board (owners and admins). Explicit, so a subscription whose boards were all deleted never widens to all.
  all_boards INTEGER NOT NULL DEFAULT 0,
  created_by TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  last_status_code INTEGER,
  last_outcome TEXT,
  last_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  -- why taskd made it inactive: 'board_deleted' (its only board was deleted for good; that board's deletion events
  -- still go out), 'failing' (its deliveries failed for 3 days without a success, or 100 in a row); NULL when a
  -- person did, or it is active
  paused_reason TEXT,
  -- the secret before the last rotation (sealed like secret_enc), still signing beside the new one until
  -- previous_secret_until (ISO 8601 UTC); both NULL when no rotation overlaps
  previous_secret_enc TEXT,
  previous_secret_until TEXT,
  failures INTEGER NOT NULL DEFAULT 0, -- deliveries that failed since its last success (or since a person resumed it)
  failing_since TEXT             -- when the first of those failed; NULL when none has
);

CREATE TABLE webhook_boards (
  webhook_id TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
  board_id TEXT NOT NULL REFERENCES boards(id) ON DELETE CASCADE,
  PRIMARY KEY (webhook_id, board_id)
) WITHOUT ROWID;
CREATE INDEX webhook_boards_board ON webhook_boards(board_id);

-- Outbox: one row per (event, subscription) delivery; id is the delivery id sent on every attempt.
CREATE TABLE outbox (
  id TEXT PRIMARY KEY,
  webhook_id TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
  event_id TEXT,                -- NULL for webhook.test deliveries, which have no event row
  board_id TEXT,                -- the event's board, for the creator's membership re-check at delivery
  event TEXT NOT NULL,
  body TEXT NOT NULL,           -- exact JSON body sent on every attempt
  attempts INTEGER NOT NULL DEFAULT 0,
  status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed', 'dropped')),
  due_at INTEGER NOT NULL,      -- epoch ms of the next attempt
  lease_until INTEGER NOT NULL DEFAULT 0, -- epoch ms; a claim whose lease passed comes back
  created_at TEXT NOT NULL,
  -- a redelivery (POST /v1/webhooks/{id}/logs/{log}/redeliver): the delivery it sends again, whose id its body and
  -- X-Webhook-Delivery carry, so the receiver sees the same id; NULL otherwise
  redelivery_of TEXT
);
CREATE INDEX outbox_due ON outbox(status, due_at) WHERE status = 'pending';
CREATE INDEX outbox_finished ON outbox(created_at) WHERE status <> 'pending';

CREATE TABLE webhook_logs (
  id TEXT PRIMARY KEY,
  seq INTEGER NOT NULL,
  webhook_id TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
  board_id TEXT,                 -- the event's board: logs show a non-admin only what their boards allow
  delivery_id TEXT NOT NULL,
  event TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  status_code INTEGER,
  outcome TEXT NOT NULL CHECK (outcome IN ('delivered', 'failed', 'retrying', 'dropped')),
  error TEXT,
  duration_ms INTEGER NOT NULL,
  at TEXT NOT NULL,
  request_body TEXT NOT NULL,
  response_excerpt TEXT NOT NULL DEFAULT ''
);
CREATE INDEX webhook_logs_webhook ON webhook_logs(webhook_id, seq);

-- Signing secrets: write-only keys for signed calls taskd makes (automation HTTP steps, agent launch URLs). The value is
-- sealed with AES-256-GCM under the master key, bound to the row id (src/crypto.ts), and never returned.
CREATE TABLE signing_secrets (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  value_enc TEXT NOT NULL,
  created_by TEXT REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  -- the value before the last rotation (sealed like value_enc), still signing beside the new one until previous_until
  -- (ISO 8601 UTC); both NULL when no rotation overlaps
  previous_value_enc TEXT,
  previous_until TEXT
);

-- Incoming webhook endpoints: a URL outside systems call to start automations. The endpoint belongs to the workspace;
-- its boards are an allowlist for the automations that may subscribe to it.
CREATE TABLE incoming_endpoints (
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
);
CREATE TABLE incoming_endpoint_boards (
  endpoint_id TEXT NOT NULL REFERENCES incoming_endpoints(id) ON DELETE CASCADE,
  board_id TEXT NOT NULL REFERENCES boards(id) ON DELETE CASCADE,
  PRIMARY KEY (endpoint_id, board_id)
) WITHOUT ROWID;
CREATE INDEX incoming_endpoint_boards_board ON incoming_endpoint_boards(board_id, endpoint_id);

-- The log of requests to an incoming endpoint (the newest 100 of each), accepted or refused.
CREATE TABLE incoming_requests (
  id TEXT PRIMARY KEY,
  seq INTEGER NOT NULL,
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
CREATE INDEX incoming_requests_endpoint ON incoming_requests(endpoint_id, seq);


-- Automations: a trigger (an incoming endpoint, events of the board, or a cron schedule) and steps; runs are queued
-- in the transaction of what triggers them and survive a restart (src/resources/automations/runner.ts).
CREATE TABLE automations (
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
  next_run_at INTEGER,             -- schedule: the next slot (epoch ms)
  steps TEXT NOT NULL,           -- JSON array of steps, as written ({secret.<id>} kept as text)
  created_by TEXT REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  paused_reason TEXT CHECK (paused_reason IN ('chain_too_deep', 'too_many_runs')), -- why taskd turned it off itself; NULL otherwise
  run_window_at INTEGER NOT NULL DEFAULT 0, -- epoch ms: the minute its runs are being counted in (the runs-per-minute cap)
  run_window_count INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX automations_board ON automations(board_id, trigger_type);
CREATE INDEX automations_endpoint ON automations(endpoint_id) WHERE endpoint_id IS NOT NULL;
CREATE INDEX automations_schedule ON automations(next_run_at) WHERE next_run_at IS NOT NULL;
CREATE TABLE automation_secrets (
  automation_id TEXT NOT NULL REFERENCES automations(id) ON DELETE CASCADE,
  secret_id TEXT NOT NULL REFERENCES signing_secrets(id),
  PRIMARY KEY (automation_id, secret_id)
) WITHOUT ROWID;
CREATE INDEX automation_secrets_secret ON automation_secrets(secret_id);
CREATE TABLE automation_runs (
  id TEXT PRIMARY KEY,
  seq INTEGER NOT NULL,
  automation_id TEXT NOT NULL REFERENCES automations(id) ON DELETE CASCADE,
  status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'succeeded', 'failed')),
  trigger_data TEXT NOT NULL,    -- JSON: { type, endpoint? | event? | scheduled_for? }
  actor TEXT NOT NULL,           -- JSON: { type, id, name }
  context TEXT NOT NULL,         -- JSON: what the placeholders read (webhook.* or event.*)
  steps TEXT NOT NULL,           -- JSON: the automation's steps when the run was queued (a later edit does not change it)
  request_id TEXT,               -- the incoming request that started it (no foreign key: the log is pruned)
  error TEXT,
  due_at INTEGER NOT NULL,
  lease_until INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  started_at TEXT,
  finished_at TEXT,
  claims INTEGER NOT NULL DEFAULT 0, -- times a runner claimed it; past MAX_CLAIMS it fails (src/resources/automations/runner.ts)
  chain TEXT NOT NULL DEFAULT '[]' -- JSON array: the automations whose runs led to this one, oldest first
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
) WITHOUT ROWID;

-- Working together on a card (version 9): comments and their @mentions, checklists, time entries (a running timer has no
-- ended_at), timesheet approvals, billing rates, notes with folders and public copies, and each user's inbox.
CREATE TABLE comments (
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
) WITHOUT ROWID;
CREATE INDEX comment_mentions_user ON comment_mentions(user_id, comment_id);
CREATE TABLE checklists (
  id TEXT PRIMARY KEY,
  card_id TEXT NOT NULL REFERENCES cards(id) ON DELETE CASCADE,
  title TEXT NOT NULL,
  position REAL NOT NULL,
  created_by TEXT REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX checklists_card ON checklists(card_id, position);
CREATE TABLE checklist_items (
  id TEXT PRIMARY KEY,
  checklist_id TEXT NOT NULL REFERENCES checklists(id) ON DELETE CASCADE,
  text TEXT NOT NULL,
  position REAL NOT NULL,
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
  hourly_rate REAL NOT NULL,
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
  kind TEXT NOT NULL CHECK (kind IN ('assigned', 'mentioned', 'commented', 'completed', 'watching', 'question', 'webhook_paused')),
  card_id TEXT REFERENCES cards(id) ON DELETE CASCADE, -- NULL for an item about no task (webhook_paused)
  comment_id TEXT REFERENCES comments(id) ON DELETE CASCADE,
  question_id TEXT,              -- kind question: the agent's question
  actor TEXT NOT NULL,           -- JSON { id, name, kind } of who caused it
  read_at TEXT,
  created_at TEXT NOT NULL,
  webhook_id TEXT REFERENCES webhooks(id) ON DELETE CASCADE -- kind webhook_paused: the subscription taskd paused
);
CREATE INDEX inbox_items_user ON inbox_items(user_id, created_at);
CREATE INDEX inbox_items_unread ON inbox_items(user_id) WHERE read_at IS NULL;
CREATE INDEX inbox_items_card ON inbox_items(card_id);
CREATE INDEX inbox_items_comment ON inbox_items(comment_id) WHERE comment_id IS NOT NULL;
CREATE INDEX inbox_items_webhook ON inbox_items(webhook_id) WHERE webhook_id IS NOT NULL;

-- Agents (users whose kind is agent): a profile each, workflows per board, kickoffs delivered in the background (by
-- src/resources/agent-kickoffs/dispatcher.ts), runs with their activity, and the questions agents ask.
CREATE TABLE agent_profiles (
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
) WITHOUT ROWID;
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
  next_attempt_at INTEGER NOT NULL, -- epoch ms; at most expires_at
  lease_until INTEGER NOT NULL DEFAULT 0, -- epoch ms: a process is attempting it until then
  last_error TEXT,
  expires_at TEXT NOT NULL,
  run_id TEXT NOT NULL UNIQUE REFERENCES agent_runs(id) ON DELETE CASCADE,
  requested_by TEXT NOT NULL,    -- JSON { id, name, kind }
  requester_id TEXT REFERENCES users(id) ON DELETE SET NULL,
  delivered_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  chain TEXT NOT NULL DEFAULT '[]' -- JSON array: the automations whose runs led to this kickoff (what the agent does carries it)
);
CREATE INDEX agent_kickoffs_due ON agent_kickoffs(next_attempt_at) WHERE status IN ('pending', 'queued');
CREATE INDEX agent_kickoffs_agent ON agent_kickoffs(agent_id, created_at);
CREATE INDEX agent_kickoffs_card ON agent_kickoffs(card_id);
CREATE INDEX agent_kickoffs_board ON agent_kickoffs(board_id, created_at);
CREATE TABLE agent_run_activity (
  id TEXT PRIMARY KEY,
  seq INTEGER NOT NULL,
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
CREATE INDEX agent_questions_card ON agent_questions(card_id);

-- Claim long polls waiting now, in any process on this database (a row per waiting poll and agent, until its wait ends
-- or, if its process died, `until` passes): a dispatcher elsewhere leaves a kickoff for the app waiting here.
CREATE TABLE agent_claim_waits (
  id TEXT NOT NULL,
  agent_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  until INTEGER NOT NULL,        -- epoch ms
  PRIMARY KEY (agent_id, id)
) WITHOUT ROWID;

-- Files: attachments of cards and notes, and the files of accepted incoming requests, kept for the automations that run
-- on them (they go with their request when its log is pruned, or when the endpoint's cap drops them). Their bytes are in
-- file_chunks (at most 1 MB each, BLOBs), so the database stays the whole backup and no file is ever held whole in
-- memory: an upload writes each chunk in a short transaction of its own as it arrives, under a row that is not
-- complete (seen by nothing), and one last transaction makes it complete; one that fails or is cut short is deleted.
CREATE TABLE files (
  id TEXT PRIMARY KEY,
  card_id TEXT REFERENCES cards(id) ON DELETE CASCADE,
  note_id TEXT REFERENCES notes(id) ON DELETE CASCADE,
  request_id TEXT REFERENCES incoming_requests(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  content_type TEXT NOT NULL,
  size INTEGER NOT NULL,
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
  data BLOB NOT NULL,
  PRIMARY KEY (file_id, seq)
);
-- Planning links (version 18). A card's parent is `cards.parent_id`, kept in step with its `parent_of` link (the
-- link's target is the child): both are written together by the cards service. Dependencies: `blocker` blocks
-- `blocked`; neither they nor parent chains may form a cycle (checked in the write transaction, serialised).
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
CREATE INDEX entity_links_target_note ON entity_links(target_note_id) WHERE target_note_id IS NOT NULL;
-- Custom fields (/v1/xattr): a board's field definitions, the options of its select fields, and the values on cards.
-- A value is one row (a multi_select value one row per option, `seq` its place) holding a number (number, boolean as
-- 0/1) or text (text, url, date as ISO text, select and multi_select as the option id, user as the user id), so a
-- filter or sort by `xattr.<key>` reads an index in value order: (field_id, num, card_id) or (field_id, str, card_id).
-- Rollup and formula fields hold no rows: they are computed on read.
CREATE TABLE xattr_fields (
  id TEXT PRIMARY KEY,
  board_id TEXT NOT NULL REFERENCES boards(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  key TEXT NOT NULL,
  type TEXT NOT NULL,
  required INTEGER NOT NULL DEFAULT 0,
  position REAL NOT NULL,
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
  num REAL,
  str TEXT,
  PRIMARY KEY (card_id, field_id, seq)
) WITHOUT ROWID;
CREATE INDEX card_xattr_num ON card_xattr(field_id, num, card_id);
CREATE INDEX card_xattr_str ON card_xattr(field_id, str, card_id);

-- Templates: workspace-level board templates, their content one JSON document { lists, statuses, tags, xattr_fields,
-- cards } (names and keys, no ids of the board they came from); and card templates, per board, naming the board's tags,
-- users and custom fields by id and key (JSON arrays and object) so one that is gone is skipped when a card is made.
CREATE TABLE templates (
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
CREATE INDEX card_templates_board ON card_templates(board_id, name);

-- Saved filters: a named card filter (its filter text, sort and expand as GET /v1/cards takes them), private to its
-- creator unless shared: with the members of its board, or with the whole workspace when it has none. A board deleted
-- for good takes its saved filters; a user deleted takes the saved filters they made, shared ones too.
CREATE TABLE saved_filters (
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
-- Full-text search (GET /v1/search): a row per card, comment and note in search_docs (its kind and id) and, under the
-- same rowid, in search_fts (FTS5): its title (none for a comment), its body (a card's description) and its scope,
-- the words the search matches what the caller sees with: k<kind>; b<board id> for what is on a board, or `hidden`
-- instead for a trashed card and its comments; `nob` and o<creator id> for a note on no board. The triggers below keep
-- both in the transaction of every write of those rows, cascades included (a card or board deleted for good takes its
-- comments and notes with it); a board's trash and its members are read when searching, so they change nothing here.
-- The index is derived: an export leaves it out, and an import rebuilds it as the rows go in.
CREATE TABLE search_docs (
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
END;
-- Forms: a board's public forms. Anyone with the address submits one (no token); each accepted submission is a new
-- card on the form's board, in its list (the board's first list when it has none, or when its list was deleted). The
-- slug is the public address, unique in the workspace; fields is a JSON array of { key, label, type, required,
-- options?, maps_to }.
CREATE TABLE forms (
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
CREATE INDEX forms_list ON forms(list_id);
-- Sign-in for people: a password per person (scrypt, stored in PHC form: parameters, salt and hash; never shown), browser
-- sessions (only the SHA-256 of the cookie's value is kept; `expires_at` moves with use, up to the longest lifetime)
-- and single-use login links (only their SHA-256). Credentials all: none of them is exported.
CREATE TABLE user_passwords (
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
CREATE INDEX login_links_user ON login_links(user_id);
-- The audit log: who did what to the workspace's setup (tokens, users, board membership, the trash, subscriptions,
-- endpoints, automations, signing secrets, agents, exports, imports, restores), append-only, written in the
-- transaction of the action. Plain ids and the names as they were: an entry outlives what it names. `details` is JSON
-- that never holds a secret. Entries older than TASKD_AUDIT_RETENTION_DAYS are pruned by the housekeeping.
CREATE TABLE audit_log (
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
CREATE INDEX audit_log_target ON audit_log(target_id, created_at, id) WHERE target_id IS NOT NULL;
-- Git hosts (/v1/git): a connection per GitHub, GitLab or Gitea account or instance, its hook secret sealed in a table of
-- its own (left out of exports, like every credential); the repositories its hooks came from (or made by hand), each
-- optionally on a board with rules (JSON array) that move or complete the board's linked cards; the branches, commits and
-- pull requests that mention card keys, and which cards each links. Pipelines (/v1/pipelines): CI runs of a repository,
-- from the hosts' CI hooks or POST /v1/pipelines, and the cards their branch or head commit mention.
CREATE TABLE git_connections (
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
) WITHOUT ROWID;
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
) WITHOUT ROWID;
CREATE INDEX pipeline_cards_card ON pipeline_cards(card_id, pipeline_id);

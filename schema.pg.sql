-- taskd schema for PostgreSQL: the twin of schema.sql (SQLite). Keep the two in step; a change to one is a change to both.
-- Times are ISO 8601 UTC strings with milliseconds ('2026-11-21T15:18:30.000Z'), so text order is time order.
-- Booleans are 0/1 integers, as in SQLite, so rows look the same to the application.
--
-- Differences from schema.sql, all of them:
--  1. Types. TEXT stays TEXT; REAL becomes DOUBLE PRECISION (lists.position, cards.position, folders.position, board_statuses.position, checklists.position,
--     checklist_items.position, user_billing_rates.hourly_rate, xattr_fields.position, card_xattr.num); BLOB becomes BYTEA (file_chunks.data;
--     pg returns a Buffer, as better-sqlite3 does). INTEGER stays INTEGER (int4) for the 0/1 booleans and small bounded
--     numbers (priority, attempts, attempt, status_code, duration_ms). It becomes BIGINT where SQLite's 64-bit integer is
--     needed or the number is unbounded: outbox.due_at and outbox.lease_until (epoch ms, past int4), files.size,
--     boards.next_key, cards.key_num, events.seq and commit_seq, webhook_logs.seq, automations.next_run_at, automation_runs.due_at
--     and lease_until, agent_kickoffs.next_attempt_at and lease_until, agent_run_activity.seq, automations.run_window_at, agent_claim_waits.until. pg returns int8 (BIGINT, and COUNT(*)) as a string:
--     register `pg.types.setTypeParser(20, (v) => Number(v))` once (all values here stay below 2^53).
--  2. WITHOUT ROWID dropped (user_group_members, board_members, card_assignees, card_watchers, card_tags, webhook_boards,
--     incoming_endpoint_boards, automation_secrets, automation_run_steps, comment_mentions, agent_workflow_steps,
--     agent_claim_waits, card_xattr, git_resource_cards, pipeline_cards); a
--     PostgreSQL table is a heap with its primary key as a separate index either way.
--  3. COLLATE NOCASE becomes lower(...) expression indexes:
--       users.email: the column is plain TEXT NOT NULL; UNIQUE ... COLLATE NOCASE becomes UNIQUE INDEX users_email_lower
--         ON users (lower(email)).
--       tags_board_name ON tags(board_id, name COLLATE NOCASE) becomes UNIQUE INDEX ON tags (board_id, lower(name)).
--     The code says lower() on both dialects (schema.sql has the same lower() indexes since version 2): getUserByEmail,
--     the tokens list's email filter, the filter's by-name membership and `email =` (src/filter/compile.ts); `~` is LIKE
--     with its pattern escaped on both, and users sort by lower(email) (src/resources/users/query.ts).
--  4. events.seq: `BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE` instead of `INTEGER NOT NULL UNIQUE` filled with
--     `(SELECT COALESCE(MAX(seq), 0) + 1 FROM events)`: with several processes, two transactions would read the same MAX.
--     src/db/dialect.ts (nextEventSeq) writes DEFAULT here and MAX + 1 on SQLite. Identity values are handed out at
--     insert, not at commit: there are gaps and a smaller seq can commit after a larger one; nothing pages by seq (the
--     change feed pages by commit_seq, given at COMMIT: see the events table).
--     An import from SQLite inserts with `OVERRIDING SYSTEM VALUE` and then runs
--     `SELECT setval(pg_get_serial_sequence('events', 'seq'), (SELECT COALESCE(MAX(seq), 0) + 1 FROM events), false)`.
--  5. webhook_logs.seq (and incoming_requests.seq, automation_runs.seq, agent_run_activity.seq): one global identity instead of the subscription's last seq + 1 (nextLogSeq in
--     src/db/dialect.ts). A subscription's log only needs an increasing seq: listLogs (ORDER BY seq DESC LIMIT n) and
--     pruneLogs (cutoff by OFFSET, then seq <= cutoff) work with gaps. Same import note as 4.
--  6. The schema version: SQLite keeps it in PRAGMA user_version; here a one-row table schema_version, made and written
--     by src/db/migrate.ts under pg_advisory_xact_lock, so processes starting together migrate once.
--  7. Collation. SQLite compares TEXT bytewise (BINARY) and its lower()/NOCASE fold ASCII only. The database must be
--     created with the C collation and ctype so ORDER BY name/title and text comparisons sort as in SQLite and
--     lower() folds the same letters:
--       CREATE DATABASE taskd TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C';
--     (scripts/test-postgres.sh does). Under en_US.UTF-8, 'a' sorts before 'B' and lower('É') is 'é' (the unique
--     indexes then also refuse 'É' next to 'é'). The app can check `SELECT datcollate, datctype FROM pg_database WHERE
--     datname = current_database()` at start.
--  10. taskd_fold(text): Unicode case folding, defined below with an ICU collation (so PostgreSQL must be built with ICU,
--     as Debian's is); SQLite gets the same function from each connection (src/db/connection.ts). Plain-ASCII text keeps
--     lower() and its indexes; other text goes through taskd_fold (src/filter/compile.ts, tag names).
--  8. Values SQLite takes and PostgreSQL refuses answer alike on both: a NUL character (U+0000) in a path id (404), a
--     query parameter (400) or a body (422) is refused in src/http/route.ts; whole-number filter fields refuse fractions
--     (src/filter/validate.ts); any other data exception (SQLSTATE class 22, e.g. 3000000000 for an int4 column) is a
--     400 invalid_value (src/db/postgres.ts), never a 500.
--  9. Foreign keys are always on (SQLite needs PRAGMA foreign_keys = ON, which src/db/open.ts sets). cards.list_id has no
--     ON DELETE action in both: deleting a board cascades to its lists and cards in one statement, and the NO ACTION check
--     runs at the statement's end in both engines, so that still works.
--  11. Full-text search: SQLite's FTS5 table search_fts, with its scope words, becomes columns of search_docs: tsv (a
--     tsvector of the 'simple' configuration, title weighted A and body B, with a GIN index), and board_id, owner_id and
--     hidden, which the search tests instead of the scope words; all kept by PL/pgSQL triggers. search_docs has no id
--     (its key is kind and record_id). 'simple' keeps diacritics (SQLite's tokenizer removes them: `cafe` finds `café`
--     there only) and parses some words otherwise (an e-mail address or `3.14` is one word here, several there). A
--     body is indexed up to its 100,000th character (a tsvector holds at most 1 MB; only a note's body can be longer);
--     SQLite indexes all of it.

-- Unicode case folding (É → é), the same as SQLite's taskd_fold, which taskd registers on each connection (JavaScript's
-- toLowerCase). Used by `~` and by name comparisons when the text is not plain ASCII; needs PostgreSQL built with ICU.
CREATE FUNCTION taskd_fold(text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT lower($1 COLLATE "und-x-icu") $$;

CREATE TABLE workspace (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  created_at TEXT NOT NULL
);

CREATE TABLE users (
  id TEXT PRIMARY KEY,
  email TEXT NOT NULL,
  name TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
  kind TEXT NOT NULL DEFAULT 'human' CHECK (kind IN ('human', 'agent')),
  created_at TEXT NOT NULL
);
-- SQLite: email ... UNIQUE COLLATE NOCASE
CREATE UNIQUE INDEX users_email_lower ON users (lower(email));

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
  rate_window_start BIGINT NOT NULL DEFAULT 0,
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
);
CREATE INDEX user_group_members_user ON user_group_members(user_id, group_id);

-- Folders of boards, workspace-wide, nested at most 5 deep (src/resources/folders); every member sees every folder.
CREATE TABLE folders (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  parent_id TEXT REFERENCES folders(id),
  position DOUBLE PRECISION NOT NULL,
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
  next_key BIGINT NOT NULL DEFAULT 1,
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
);
CREATE INDEX board_members_user ON board_members(user_id, board_id);

-- A board's statuses (workflow states): lists bound to one take its category.
CREATE TABLE board_statuses (
  id TEXT PRIMARY KEY,
  board_id TEXT NOT NULL REFERENCES boards(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  category TEXT NOT NULL CHECK (category IN ('backlog', 'unstarted', 'started', 'completed', 'canceled')),
  color TEXT,
  position DOUBLE PRECISION NOT NULL,
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
  position DOUBLE PRECISION NOT NULL,
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
  key_num BIGINT NOT NULL,
  key TEXT NOT NULL,
  title TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  position DOUBLE PRECISION NOT NULL,
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
);
CREATE INDEX card_assignees_user ON card_assignees(user_id, card_id);

CREATE TABLE card_watchers (
  card_id TEXT NOT NULL REFERENCES cards(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  PRIMARY KEY (card_id, user_id)
);
CREATE INDEX card_watchers_user ON card_watchers(user_id, card_id);

CREATE TABLE tags (
  id TEXT PRIMARY KEY,
  board_id TEXT NOT NULL REFERENCES boards(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  color TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
-- SQLite: tags(board_id, name COLLATE NOCASE)
CREATE UNIQUE INDEX tags_board_name ON tags(board_id, lower(name));
-- `tags ~ "bug"` matches by name across boards. SQLite: tags(name COLLATE NOCASE)
CREATE INDEX tags_name ON tags(lower(name));

CREATE TABLE card_tags (
  card_id TEXT NOT NULL REFERENCES cards(id) ON DELETE CASCADE,
  tag_id TEXT NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
  PRIMARY KEY (card_id, tag_id)
);
CREATE INDEX card_tags_tag ON card_tags(tag_id, card_id);


-- Events: one row per thing that happened, with its enriched data (JSON), written in the transaction of the change.
-- seq comes from the identity sequence (SQLite: MAX(seq) + 1 in the insert); see note 4 above.
-- commit_seq is the event's place in commit order, which the change feed (GET /v1/events) pages by. seq is handed out
-- at insert, so a transaction may commit a smaller seq after another committed a larger one: a reader paging by seq
-- would skip it. commit_seq is given in the transaction's COMMIT message (by the insert of the event rows sent there,
-- or by an UPDATE of those inserted before it), after the last commit_seq, under an advisory lock held until the commit
-- is visible (src/db/postgres.ts), so every commit_seq a reader can see follows all those before it.
CREATE TABLE events (
  id TEXT PRIMARY KEY,
  seq BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
  name TEXT NOT NULL,
  board_id TEXT,
  data TEXT NOT NULL,
  created_at TEXT NOT NULL,
  audience_id TEXT,             -- the one user who may see it (a private saved filter's events); NULL: all who see its board
  commit_seq BIGINT
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
);
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
  due_at BIGINT NOT NULL,       -- epoch ms of the next attempt
  lease_until BIGINT NOT NULL DEFAULT 0, -- epoch ms; a claim whose lease passed comes back
  created_at TEXT NOT NULL,
  -- a redelivery (POST /v1/webhooks/{id}/logs/{log}/redeliver): the delivery it sends again, whose id its body and
  -- X-Webhook-Delivery carry, so the receiver sees the same id; NULL otherwise
  redelivery_of TEXT
);
CREATE INDEX outbox_due ON outbox(status, due_at) WHERE status = 'pending';
CREATE INDEX outbox_finished ON outbox(created_at) WHERE status <> 'pending';

-- seq: one identity for all subscriptions (SQLite: the subscription's last seq + 1, computed in code); see note 5 above.
CREATE TABLE webhook_logs (
  id TEXT PRIMARY KEY,
  seq BIGINT GENERATED ALWAYS AS IDENTITY,
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
);
CREATE INDEX incoming_endpoint_boards_board ON incoming_endpoint_boards(board_id, endpoint_id);

-- The log of requests to an incoming endpoint (the newest 100 of each), accepted or refused.
CREATE TABLE incoming_requests (
  id TEXT PRIMARY KEY,
  seq BIGINT GENERATED ALWAYS AS IDENTITY,
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
  next_run_at BIGINT,             -- schedule: the next slot (epoch ms)
  steps TEXT NOT NULL,           -- JSON array of steps, as written ({secret.<id>} kept as text)
  created_by TEXT REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  paused_reason TEXT CHECK (paused_reason IN ('chain_too_deep', 'too_many_runs')), -- why taskd turned it off itself; NULL otherwise
  run_window_at BIGINT NOT NULL DEFAULT 0, -- epoch ms: the minute its runs are being counted in (the runs-per-minute cap)
  run_window_count INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX automations_board ON automations(board_id, trigger_type);
CREATE INDEX automations_endpoint ON automations(endpoint_id) WHERE endpoint_id IS NOT NULL;
CREATE INDEX automations_schedule ON automations(next_run_at) WHERE next_run_at IS NOT NULL;
CREATE TABLE automation_secrets (
  automation_id TEXT NOT NULL REFERENCES automations(id) ON DELETE CASCADE,
  secret_id TEXT NOT NULL REFERENCES signing_secrets(id),
  PRIMARY KEY (automation_id, secret_id)
);
CREATE INDEX automation_secrets_secret ON automation_secrets(secret_id);
CREATE TABLE automation_runs (
  id TEXT PRIMARY KEY,
  seq BIGINT GENERATED ALWAYS AS IDENTITY,
  automation_id TEXT NOT NULL REFERENCES automations(id) ON DELETE CASCADE,
  status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'succeeded', 'failed')),
  trigger_data TEXT NOT NULL,    -- JSON: { type, endpoint? | event? | scheduled_for? }
  actor TEXT NOT NULL,           -- JSON: { type, id, name }
  context TEXT NOT NULL,         -- JSON: what the placeholders read (webhook.* or event.*)
  steps TEXT NOT NULL,           -- JSON: the automation's steps when the run was queued (a later edit does not change it)
  request_id TEXT,               -- the incoming request that started it (no foreign key: the log is pruned)
  error TEXT,
  due_at BIGINT NOT NULL,
  lease_until BIGINT NOT NULL DEFAULT 0,
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
);

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
);
CREATE INDEX comment_mentions_user ON comment_mentions(user_id, comment_id);
CREATE TABLE checklists (
  id TEXT PRIMARY KEY,
  card_id TEXT NOT NULL REFERENCES cards(id) ON DELETE CASCADE,
  title TEXT NOT NULL,
  position DOUBLE PRECISION NOT NULL,
  created_by TEXT REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX checklists_card ON checklists(card_id, position);
CREATE TABLE checklist_items (
  id TEXT PRIMARY KEY,
  checklist_id TEXT NOT NULL REFERENCES checklists(id) ON DELETE CASCADE,
  text TEXT NOT NULL,
  position DOUBLE PRECISION NOT NULL,
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
  hourly_rate DOUBLE PRECISION NOT NULL,
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
);
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
  next_attempt_at BIGINT NOT NULL, -- epoch ms; at most expires_at
  lease_until BIGINT NOT NULL DEFAULT 0, -- epoch ms: a process is attempting it until then
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
  seq BIGINT GENERATED ALWAYS AS IDENTITY,
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
  until BIGINT NOT NULL,         -- epoch ms
  PRIMARY KEY (agent_id, id)
);

-- Files: attachments of cards and notes, and the files of accepted incoming requests, kept for the automations that run
-- on them (they go with their request when its log is pruned, or when the endpoint's cap drops them). Their bytes are in
-- file_chunks (at most 1 MB each, bytea), so the database stays the whole backup and no file is ever held whole in
-- memory: an upload writes each chunk in a short transaction of its own as it arrives, under a row that is not
-- complete (seen by nothing), and one last transaction makes it complete; one that fails or is cut short is deleted.
CREATE TABLE files (
  id TEXT PRIMARY KEY,
  card_id TEXT REFERENCES cards(id) ON DELETE CASCADE,
  note_id TEXT REFERENCES notes(id) ON DELETE CASCADE,
  request_id TEXT REFERENCES incoming_requests(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  content_type TEXT NOT NULL,
  size BIGINT NOT NULL,
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
  data BYTEA NOT NULL,
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
  position DOUBLE PRECISION NOT NULL,
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
  num DOUBLE PRECISION,
  str TEXT,
  PRIMARY KEY (card_id, field_id, seq)
);
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
-- Full-text search (GET /v1/search): a row per card, comment and note with a tsvector of its title (weight A; none for a
-- comment) and its body (weight B; a card's description), up to the body's 100,000th character (as much as a card's
-- description or a comment holds; a tsvector holds at most 1 MB, whatever the text), in the 'simple' configuration
-- (language-neutral) of the text folded by taskd_fold (the C ctype's lower() folds ASCII letters alone); and where the
-- record is, for what the caller sees: its board (a comment: its card's), hidden (a trashed card and its comments) and,
-- for a note on no board, its creator. The triggers below keep it in the transaction of every write of those rows,
-- cascades included; a comment's row reads its card FOR SHARE, so a move of the card waits for it or it for the move,
-- and the move's trigger then sees it. A board's trash and its members are read when searching. The index is derived:
-- an export leaves it out, and an import rebuilds it as the rows go in.
CREATE TABLE search_docs (
  kind TEXT NOT NULL CHECK (kind IN ('card', 'comment', 'note')),
  record_id TEXT NOT NULL,
  board_id TEXT,
  owner_id TEXT,
  hidden INTEGER NOT NULL DEFAULT 0,
  tsv tsvector NOT NULL,
  PRIMARY KEY (kind, record_id)
);
CREATE INDEX search_docs_tsv ON search_docs USING gin (tsv);
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
CREATE TRIGGER notes_search_delete AFTER DELETE ON notes FOR EACH ROW EXECUTE FUNCTION taskd_search_doc('note');
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
);
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
);
CREATE INDEX pipeline_cards_card ON pipeline_cards(card_id, pipeline_id);

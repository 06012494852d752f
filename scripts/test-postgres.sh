#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the test suite.
#
#   scripts/test-postgres.sh [start]   start (or reuse) the cluster; prints TASKD_TEST_DATABASE_URL=... on stdout
#   scripts/test-postgres.sh stop      stop the cluster and delete its folder (a no-op when none runs)
#   scripts/test-postgres.sh status    print the URL and exit 0 when it runs, exit 1 otherwise
#   scripts/test-postgres.sh install   as root: install Debian's postgresql (and pgbouncer) when they are not found
#   scripts/test-postgres.sh pooler    start (or reuse) the cluster and a PgBouncer in front of it (127.0.0.1 only,
#                                      transaction pooling, every database of the cluster); prints
#                                      TASKD_TEST_POOLER_URL=... (exit 3 when pgbouncer is not installed)
#
#   export "$(scripts/test-postgres.sh)"   # sets TASKD_TEST_DATABASE_URL in this shell
#
# The cluster lives in one folder, TASKD_PG_BASE (default ${TMPDIR:-/tmp}/taskd-pg-<uid>-<hash of this clone's path>):
# data/, a private socket directory sock/ (mode 0700), server.log, port and env (the URL line). Its parent folders must be
# searchable by the server's user (as root: not under /root). It listens on 127.0.0.1 only, on a free port
# (or TASKD_PG_PORT), with durability off (fsync, synchronous_commit, full_page_writes) since it is thrown away.
# Role `taskd` (password `taskd`, or a URL-safe TASKD_PG_PASSWORD; CREATEDB) owns database `taskd_test`,
# created with the C collation and ctype so text sorts and lower() folds as in SQLite (bytewise, ASCII only).
# Passwords over TCP are md5: the suite opens thousands of connections, and scram-sha-256 costs some 5 ms of CPU on each
# side of each one; on a throwaway cluster listening on 127.0.0.1 that buys nothing.
# Server binaries: TASKD_PG_BIN, else the newest /usr/lib/postgresql/<ver>/bin (Debian), else pg_ctl on PATH.
# As root it runs the server as TASKD_PG_OS_USER, else the `postgres` user (Debian's package makes it), else `taskd-pg`;
# a missing one is created as a system user (initdb refuses root). As any other user it runs as that user.
# PgBouncer (`pooler`) lives in $base/pgbouncer/ and runs as the server's user; `stop` stops it with the cluster.
# Exit codes: 0 fine, 1 failure, 3 no PostgreSQL server binaries here, or (pooler) no pgbouncer (a test runner may skip then).
set -euo pipefail

cmd=${1:-start}
repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
base=${TASKD_PG_BASE:-${TMPDIR:-/tmp}/taskd-pg-$(id -u)-$(printf '%s' "$repo_root" | sha1sum | cut -c1-10)}
password=${TASKD_PG_PASSWORD:-taskd}
db=taskd_test
role=taskd

log() { printf 'test-postgres: %s\n' "$*" >&2; }
die() {
  log "$*"
  exit 1
}

find_bindir() {
  if [[ -n ${TASKD_PG_BIN:-} ]]; then
    [[ -x $TASKD_PG_BIN/pg_ctl ]] || die "TASKD_PG_BIN=$TASKD_PG_BIN has no pg_ctl"
    printf '%s\n' "$TASKD_PG_BIN"
    return 0
  fi
  local d best=
  for d in /usr/lib/postgresql/*/bin; do
    [[ -x $d/initdb && -x $d/pg_ctl && -x $d/postgres ]] || continue
    # newest major version wins (sort -V over the version folder names)
    best=$(printf '%s\n%s\n' "$best" "$d" | sed '/^$/d' | sort -V | tail -n1)
  done
  if [[ -z $best ]] && command -v pg_ctl >/dev/null && command -v initdb >/dev/null; then
    best=$(dirname "$(readlink -f "$(command -v pg_ctl)")")
  fi
  [[ -n $best ]] || return 1
  printf '%s\n' "$best"
}

# The OS user the server runs as, and a prefix that runs a command as that user.
pick_user() {
  if [[ $(id -u) -ne 0 ]]; then
    pg_user=$(id -un)
    as_pg=()
    return 0
  fi
  if [[ -n ${TASKD_PG_OS_USER:-} ]]; then
    pg_user=$TASKD_PG_OS_USER
  elif id -u postgres >/dev/null 2>&1; then
    pg_user=postgres
  else
    pg_user=taskd-pg
  fi
  if [[ $cmd == start || $cmd == pooler ]] && ! id -u "$pg_user" >/dev/null 2>&1; then
    useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$pg_user"
  fi
  if command -v runuser >/dev/null; then
    as_pg=(runuser -u "$pg_user" --)
  else
    as_pg=(setpriv --reuid="$pg_user" --regid="$(id -g "$pg_user")" --init-groups --)
  fi
}

# Run as the server's user, from / (a cwd that user cannot read raises warnings), without the lock fd 9 (the server would keep it).
run_pg() { (cd / && "${as_pg[@]}" "$@" 9>&-); }

free_port() {
  if [[ -n ${TASKD_PG_PORT:-} ]]; then
    printf '%s\n' "$TASKD_PG_PORT"
    return 0
  fi
  if command -v node >/dev/null; then
    node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
    return 0
  fi
  local p
  for _ in $(seq 1 50); do
    p=$((20000 + RANDOM % 40000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
      printf '%s\n' "$p"
      return 0
    fi
  done
  die "no free port found"
}

url() { printf 'postgres://%s:%s@127.0.0.1:%s/%s\n' "$role" "$password" "$(cat "$base/port")" "$db"; }

# psql as the bootstrap superuser over the private socket (trust there).
psql_su() { "$bindir/psql" -X -q -v ON_ERROR_STOP=1 -h "$base/sock" -p "$(cat "$base/port")" -U postgres "$@"; }

is_running() {
  [[ -f $base/data/postmaster.pid && -f $base/port ]] || return 1
  # a cluster made for another server user (TASKD_PG_OS_USER) is not ours to reuse: stop_cluster replaces it
  [[ $(stat -c %U "$base/data") == "$pg_user" ]] || return 1
  run_pg "$bindir/pg_ctl" -D "$base/data" status >/dev/null 2>&1 || return 1
  "$bindir/pg_isready" -q -h 127.0.0.1 -p "$(cat "$base/port")" -t 5
}

stop_pooler() {
  local pid
  pid=$(head -n1 "$base/pgbouncer/pgbouncer.pid" 2>/dev/null || true)
  # Only the pgbouncer of this folder (its command line names its ini file).
  if [[ $pid =~ ^[0-9]+$ ]] && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$base/pgbouncer/pgbouncer.ini"; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do
      [[ -e /proc/$pid && $(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) != Z ]] || break
      sleep 0.1
    done
  fi
  rm -rf -- "$base/pgbouncer"
}

pooler_running() {
  [[ -f $base/pgbouncer/port && -f $base/pgbouncer/pgbouncer.pid ]] || return 1
  local pid
  pid=$(head -n1 "$base/pgbouncer/pgbouncer.pid")
  [[ $pid =~ ^[0-9]+$ && -e /proc/$pid ]] || return 1
  "$bindir/pg_isready" -q -h 127.0.0.1 -p "$(cat "$base/pgbouncer/port")" -t 5
}

pooler_url() { printf 'postgres://%s:%s@127.0.0.1:%s/%s\n' "$role" "$password" "$(cat "$base/pgbouncer/port")" "$db"; }

# PgBouncer in transaction pooling mode in front of the cluster: any database name is passed through (`*`), as the
# role taskd with its password (the auth file holds it in plain text: a throwaway cluster on 127.0.0.1).
start_pooler() {
  local pgb
  pgb=$(command -v pgbouncer || true)
  [[ -n $pgb ]] || pgb=/usr/sbin/pgbouncer
  if [[ ! -x $pgb ]]; then
    log "no pgbouncer found; run '$0 install' as root (Debian's pgbouncer)"
    exit 3
  fi
  start_cluster >/dev/null
  if pooler_running; then
    printf 'TASKD_TEST_POOLER_URL=%s\n' "$(pooler_url)"
    return 0
  fi
  stop_pooler
  local dir=$base/pgbouncer port tries=0
  mkdir -p "$dir"
  printf '"%s" "%s"\n' "$role" "$password" >"$dir/userlist.txt"
  while :; do
    port=$(free_port)
    printf '%s\n' "$port" >"$dir/port"
    cat >"$dir/pgbouncer.ini" <<EOF
[databases]
* = host=127.0.0.1 port=$(cat "$base/port")

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $port
unix_socket_dir =
auth_type = md5
auth_file = $dir/userlist.txt
pool_mode = transaction
admin_users = $role
max_client_conn = 2000
default_pool_size = 40
max_db_connections = 60
server_idle_timeout = 10
logfile = $dir/pgbouncer.log
pidfile = $dir/pgbouncer.pid
EOF
    chmod 0700 "$dir"
    [[ $(id -u) -ne 0 ]] || chown -R "$pg_user:" "$dir"
    if run_pg "$pgb" -d -q "$dir/pgbouncer.ini" >>"$dir/start.log" 2>&1; then
      for _ in $(seq 1 50); do
        pooler_running && break
        sleep 0.1
      done
      pooler_running && break
    fi
    tries=$((tries + 1))
    if [[ $tries -ge 5 ]]; then
      tail -n 20 "$dir/pgbouncer.log" "$dir/start.log" >&2 2>/dev/null || true
      die "pgbouncer did not start"
    fi
    log "pgbouncer did not start on port $port; trying another"
  done
  log "PgBouncer on 127.0.0.1:$port in front of 127.0.0.1:$(cat "$base/port") (transaction pooling)"
  printf 'TASKD_TEST_POOLER_URL=%s\n' "$(pooler_url)"
}

stop_cluster() {
  stop_pooler
  if [[ -f $base/data/postmaster.pid ]]; then
    # As the data folder's owner, whoever started it; immediate: nothing here is worth a checkpoint.
    local owner pid
    owner=$(stat -c %U "$base/data")
    if [[ $(id -u) -eq 0 && $owner != root ]]; then
      (cd / && runuser -u "$owner" -- "$bindir/pg_ctl" -D "$base/data" -m immediate -w -t 30 stop 9>&-) >/dev/null 2>&1 || true
    else
      (cd / && "$bindir/pg_ctl" -D "$base/data" -m immediate -w -t 30 stop 9>&-) >/dev/null 2>&1 || true
    fi
    # Should pg_ctl have failed, the postmaster of this data folder (and only that) is killed before its folder goes.
    pid=$(head -n1 "$base/data/postmaster.pid" 2>/dev/null || true)
    if [[ $pid =~ ^[0-9]+$ ]] && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "-D $base/data"; then
      log "pg_ctl could not stop postmaster $pid; killing it"
      kill -KILL "$pid" 2>/dev/null || true
      for _ in $(seq 1 50); do
        [[ -e /proc/$pid && $(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) != Z ]] || break
        sleep 0.1
      done
    fi
  fi
  rm -rf -- "$base"
}

start_cluster() {
  if is_running; then
    log "reusing the cluster in $base"
    printf 'TASKD_TEST_DATABASE_URL=%s\n' "$(url)"
    return 0
  fi
  # Anything left over (a crashed or half-made cluster) goes.
  stop_cluster

  local t0=$SECONDS
  mkdir -p "$base/sock"
  chmod 0700 "$base" "$base/sock"
  [[ $(id -u) -ne 0 ]] || chown -R "$pg_user:" "$base"
  # set -e ends the script on any failure below; the EXIT trap (main shell only) then removes the half-made cluster
  started=0
  trap 'if [[ $started != 1 ]]; then log "start failed; server log:"; tail -n 20 "$base/server.log" >&2 2>/dev/null || true; stop_cluster; fi' EXIT

  run_pg "$bindir/initdb" -D "$base/data" -U postgres --encoding=UTF8 --locale=C --no-sync \
    --auth-local=trust --auth-host=md5 >"$base/initdb.log" 2>&1 ||
    {
      cat "$base/initdb.log" >&2
      false
    }

  cat >"$base/data/pg_hba.conf" <<'EOF'
# TYPE  DATABASE  USER  ADDRESS       METHOD
local   all       all                 trust
host    all       all   127.0.0.1/32  md5
EOF
  cat >>"$base/data/postgresql.conf" <<EOF

# scripts/test-postgres.sh: a throwaway test cluster
listen_addresses = '127.0.0.1'
unix_socket_directories = '$base/sock'
unix_socket_permissions = 0700
fsync = off
synchronous_commit = off
full_page_writes = off
wal_level = minimal
max_wal_senders = 0
checkpoint_timeout = 30min
max_connections = 200
jit = off
timezone = 'UTC'
log_timezone = 'UTC'
lc_messages = 'C'
logging_collector = off
log_min_messages = warning
password_encryption = 'md5'
EOF

  local port tries=0
  while :; do
    port=$(free_port)
    printf '%s\n' "$port" >"$base/port"
    if run_pg "$bindir/pg_ctl" -D "$base/data" -l "$base/server.log" -o "-p $port" -w -t 30 start >/dev/null 2>&1; then
      break
    fi
    tries=$((tries + 1))
    # a port taken between the check and the bind: try another, unless it was asked for
    if [[ -n ${TASKD_PG_PORT:-} || $tries -ge 5 ]] || ! grep -q 'could not bind\|already in use' "$base/server.log"; then
      false
    fi
    log "port $port was taken; trying another"
  done

  psql_su -d postgres <<EOF
CREATE ROLE $role LOGIN CREATEDB PASSWORD '$password';
CREATE DATABASE $db OWNER $role TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C';
EOF
  started=1
  printf 'TASKD_TEST_DATABASE_URL=%s\n' "$(url)" >"$base/env"
  log "PostgreSQL $("$bindir/postgres" -V | awk '{print $3}') on 127.0.0.1:$port, data in $base/data ($((SECONDS - t0)) s)"
  cat "$base/env"
}

install_pg() {
  if find_bindir >/dev/null 2>&1; then
    log "PostgreSQL server binaries found in $(find_bindir)"
    return 0
  fi
  [[ $(id -u) -eq 0 ]] || die "install needs root"
  command -v apt-get >/dev/null || die "install needs apt-get (Debian)"
  log "installing Debian's postgresql"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq --no-install-recommends postgresql >&2
}

install_pgbouncer() {
  if command -v pgbouncer >/dev/null || [[ -x /usr/sbin/pgbouncer ]]; then
    log "pgbouncer found"
    return 0
  fi
  [[ $(id -u) -eq 0 ]] || die "install needs root"
  command -v apt-get >/dev/null || die "install needs apt-get (Debian)"
  log "installing Debian's pgbouncer"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq --no-install-recommends pgbouncer >&2
}

case $cmd in
  install)
    install_pg
    install_pgbouncer
    exit 0
    ;;
  start | stop | status | pooler) ;;
  -h | --help | help)
    sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
    exit 0
    ;;
  *) die "unknown command '$cmd' (start, stop, status, pooler, install)" ;;
esac

if ! bindir=$(find_bindir); then
  if [[ $cmd == stop ]]; then
    rm -rf -- "$base"
    exit 0
  fi
  log "no PostgreSQL server binaries (initdb, pg_ctl, postgres) found; run '$0 install' as root or set TASKD_PG_BIN"
  exit 3
fi
pick_user

# One caller at a time per cluster folder (two test processes may ask at once).
lock=$base.lock
exec 9>"$lock"
flock -w 120 9 || die "could not lock $lock"

case $cmd in
  start) start_cluster ;;
  pooler) start_pooler ;;
  stop)
    stop_cluster
    rm -f -- "$lock"
    log "stopped; removed $base"
    ;;
  status)
    if is_running; then
      printf 'TASKD_TEST_DATABASE_URL=%s\n' "$(url)"
    else
      exit 1
    fi
    ;;
esac

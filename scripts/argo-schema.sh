#!/usr/bin/env bash
# Validates the workflows `agentlab export argo` writes against Argo's own
# JSON schema, as shipped by the npm package @kubernetes-models/argo-workflows
# (installed from the npm registry into a cache directory). Skips, saying so,
# when node or npm is missing or the install fails.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "argo-schema: SKIPPED: node and npm are needed"; exit 0
fi
dir="${XDG_CACHE_HOME:-$HOME/.cache}/agentlab-argo-schema"
mkdir -p "$dir"
if [ ! -d "$dir/node_modules/@kubernetes-models/argo-workflows" ]; then
  (cd "$dir" && { [ -f package.json ] || npm init -y >/dev/null; } &&
    npm install --no-audit --no-fund --silent @kubernetes-models/argo-workflows@2.0.0 js-yaml@4.1.0) ||
    { echo "argo-schema: SKIPPED: the npm packages could not be installed"; exit 0; }
fi
cp internal/argo/testdata/validate.mjs "$dir/validate.mjs"
AGENTLAB_ARGO_SCHEMA_DIR="$dir" go test -count=1 -run TestArgoSchema -v ./internal/argo | grep -E '^(---|ok|FAIL|PASS)|schema' 

#!/usr/bin/env bash
# Runs openai_client_test.mjs, failing (never skipping) with what to install when Node or the
# pinned openai package is missing.
#   run_openai_client_test.sh HEARTH_SERVER MODEL.gguf
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v node > /dev/null; then
    echo "FAIL: node is missing: apt-get install nodejs npm, then npm ci in $here" \
         "(packaging/setup.sh test does both)" >&2
    exit 1
fi
if [ ! -f "$here/node_modules/openai/package.json" ]; then
    echo "FAIL: the openai package is not installed: run 'npm ci' in $here" \
         "(packaging/setup.sh test does)" >&2
    exit 1
fi
exec node "$here/openai_client_test.mjs" "$@"

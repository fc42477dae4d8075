#!/usr/bin/env bash
# Slow security and reliability tests against the server built by stage 30 (nothing is built here):
# fuzzing every route, 50 concurrent annotators for 5 s, kill -9 during bulk imports and annotation.
set -euo pipefail
cd "$TESSERA_ROOT"
if [ ! -f apps/server/dist/main.js ]; then echo "apps/server/dist/main.js is missing: run the build stage (30) first" >&2; exit 1; fi
pnpm --filter @tessera/security-tests run test:security

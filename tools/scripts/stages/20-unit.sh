#!/usr/bin/env bash
# Unit and integration tests (vitest) of every package, the server's over real HTTP.
set -euo pipefail
cd "$TESSERA_ROOT"
pnpm turbo run test --output-logs=errors-only --concurrency=1

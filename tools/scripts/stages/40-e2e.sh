#!/usr/bin/env bash
# End-to-end tests: the built server and web app in Debian's headless Chromium (playwright-core).
set -euo pipefail
cd "$TESSERA_ROOT"
pnpm --filter @tessera/e2e run test:e2e

#!/usr/bin/env bash
# Production builds of the server and the web app (the end-to-end and SDK stages run them).
set -euo pipefail
cd "$TESSERA_ROOT"
pnpm turbo run build --output-logs=errors-only

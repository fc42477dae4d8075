#!/usr/bin/env bash
# Formatting (Prettier, .prettierrc.json: `pnpm format` rewrites, this checks), lint (including the
# dependency-direction rules) and strict type checks of every package.
set -euo pipefail
cd "$TESSERA_ROOT"
pnpm exec prettier --check . --log-level warn || { echo "Formatting differs in the files above: run 'pnpm format' and commit." >&2; exit 1; }
pnpm turbo run lint typecheck --output-logs=errors-only

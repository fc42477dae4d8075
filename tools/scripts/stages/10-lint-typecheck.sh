#!/usr/bin/env bash
# Lint (including the dependency-direction rules) and strict type checks of every package.
set -euo pipefail
cd "$TESSERA_ROOT"
pnpm turbo run lint typecheck --output-logs=errors-only

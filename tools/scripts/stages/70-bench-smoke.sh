#!/usr/bin/env bash
# Benchmark smoke run (1K records, a few seconds, a tiny browser part) so that tools/bench cannot rot.
# It fails when any benchmarked call errors; timings are printed, never asserted.
set -euo pipefail
cd "$TESSERA_ROOT"
pnpm --filter @tessera/bench run bench --smoke --json "$TESSERA_ROOT/test-artifacts/bench-smoke.json"

#!/usr/bin/env bash
# Benchmark smoke run (1K records, a few seconds, a tiny browser part; the agreement bench on 500 records) so that tools/bench cannot rot.
# It fails when any benchmarked call errors; timings are printed, never asserted.
set -euo pipefail
cd "$TESSERA_ROOT"
pnpm --filter @tessera/bench run bench --smoke --json "$TESSERA_ROOT/test-artifacts/bench-smoke.json"
pnpm --filter @tessera/bench run bench:agreement --records 500 --runs 1

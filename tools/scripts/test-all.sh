#!/usr/bin/env bash
# Runs every test of the repository on a fresh machine (what `./tessera test` and CI run).
# It installs what it needs: Node 24 and pnpm (env.sh), the workspace packages, Debian's chromium,
# and, for the SDK suite, a Python virtual environment. Each stage lives in tools/scripts/stages/
# and runs in name order; a failing stage fails the run after all stages had their turn.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$ROOT/tools/scripts/env.sh" || exit 1
cd "$ROOT"
export TESSERA_ROOT="$ROOT" CI="${CI:-1}"
only="${1:-}"
failed=()
start_all=$(date +%s)
for stage in "$ROOT"/tools/scripts/stages/*.sh; do
  name="$(basename "$stage" .sh)"
  if [ -n "$only" ] && [[ "$name" != *"$only"* ]]; then continue; fi
  echo "::: stage $name"
  t0=$(date +%s)
  if bash "$stage"; then echo "::: stage $name passed in $(( $(date +%s) - t0 ))s"
  else echo "::: stage $name FAILED in $(( $(date +%s) - t0 ))s"; failed+=("$name")
    # Nothing later can work without the install.
    [[ "$name" == 00-* ]] && break
  fi
done
echo "::: all stages took $(( $(date +%s) - start_all ))s"
if [ ${#failed[@]} -gt 0 ]; then echo "::: FAILED: ${failed[*]}"; exit 1; fi
echo "::: all tests passed"

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
mkdir -p "$TOOLS_DIR/logs"
start_all=$(date +%s)
for stage in "$ROOT"/tools/scripts/stages/*.sh; do
  name="$(basename "$stage" .sh)"
  if [ -n "$only" ] && [[ "$name" != *"$only"* ]]; then continue; fi
  echo "::: stage $name"
  t0=$(date +%s)
  bash "$stage" 2>&1 | tee "$TOOLS_DIR/logs/stage-$name.log"
  if [ "${PIPESTATUS[0]}" -eq 0 ]; then echo "::: stage $name passed in $(( $(date +%s) - t0 ))s"
  else echo "::: stage $name FAILED in $(( $(date +%s) - t0 ))s"; failed+=("$name")
    # Nothing later can work without the install.
    [[ "$name" == 00-* ]] && break
  fi
done
echo "::: all stages took $(( $(date +%s) - start_all ))s"
# What failed, at the end where a CI log's tail shows it: the failing tests' names from each failed stage.
for name in "${failed[@]}"; do
  echo "::: what failed in $name (full log: .tools/logs/stage-$name.log):"
  sed 's/\x1b\[[0-9;]*m//g' "$TOOLS_DIR/logs/stage-$name.log" |
    grep -E '^ *(FAIL|FAILED|ERROR) |^FAILED |AssertionError|^---.*FAILED|Error: |✗|×' | sort -u | head -40 | sed 's/^/:::   /'
done
if [ ${#failed[@]} -gt 0 ]; then echo "::: FAILED: ${failed[*]}"; exit 1; fi
echo "::: all tests passed"

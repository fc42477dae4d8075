#!/usr/bin/env bash
# Installs the workspace, Debian's chromium (for the browser tests) and python3-venv when missing. Each step is
# named; a failing one prints its real error (tools/scripts/env.sh: tessera_step).
set -euo pipefail
ROOT="$TESSERA_ROOT"
source "$ROOT/tools/scripts/env.sh"
cd "$ROOT"
tessera_install
if ! command -v chromium >/dev/null 2>&1 && [ -z "${CHROMIUM_PATH:-}" ]; then
  echo "installing Debian's chromium for the browser tests"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  tessera_step apt-update $SUDO apt-get update
  DEBIAN_FRONTEND=noninteractive tessera_step apt-chromium $SUDO apt-get install -y chromium
fi
# The SDK suites and the PostgreSQL stage make Python virtual environments: Debian's python3 needs python3-venv for that.
if ! python3 -c "import venv, ensurepip" >/dev/null 2>&1; then
  echo "installing Debian's python3-venv for the SDK suites' virtual environments"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  tessera_step apt-update $SUDO apt-get update
  DEBIAN_FRONTEND=noninteractive tessera_step apt-python3-venv $SUDO apt-get install -y python3-venv
fi

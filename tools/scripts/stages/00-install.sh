#!/usr/bin/env bash
# Installs the workspace and Debian's chromium (for the browser tests) when missing.
set -euo pipefail
cd "$TESSERA_ROOT"
pnpm install --frozen-lockfile --reporter=silent
if ! command -v chromium >/dev/null 2>&1 && [ -z "${CHROMIUM_PATH:-}" ]; then
  echo "installing Debian's chromium for the browser tests"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi

#!/usr/bin/env bash
# The official argilla SDK's own integration suite (tests/integration of the argilla==2.8.0 sdist on
# PyPI) against the real built server on the embedded store; stage 60 runs it on PostgreSQL too.
# Needs the build (30).
set -euo pipefail
cd "$TESSERA_ROOT"
bash tools/scripts/sdk-integration.sh

#!/usr/bin/env bash
# The official Python SDK (argilla==2.8.0 from PyPI, in a project-local virtual environment)
# against the real built server.
set -euo pipefail
cd "$TESSERA_ROOT"
if [ ! -x .venv/bin/python ] || ! .venv/bin/python -c "import argilla, pytest, requests" 2>/dev/null; then
  python3 -m venv .venv
  .venv/bin/pip install --quiet --disable-pip-version-check -r tests/sdk/requirements.txt
fi
TESSERA_NODE="$(command -v node)" .venv/bin/python -m pytest -q -p no:cacheprovider tests/sdk "$@"

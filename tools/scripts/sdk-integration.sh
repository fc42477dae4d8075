#!/usr/bin/env bash
# The official argilla SDK's own integration suite against the real built server: downloads the sdist
# of argilla==2.8.0 from PyPI (checksum checked), unpacks it to a temp dir and runs its
# tests/integration with pytest (tests/sdk-integration/run_suite.py: the built server on a free
# loopback port, an owner's API key, only the tests that need the Hugging Face Hub deselected, each
# with its reason). Fails when any test fails; prints the pass count.
#   tools/scripts/sdk-integration.sh                              the embedded store (a fresh data dir)
#   DATABASE_URL=postgres://user@host:port/db tools/scripts/sdk-integration.sh
#                                                                  a fresh database made on that PostgreSQL server
# Needs the server build (pnpm turbo run build) and python3; makes its own virtual environment
# (.venv-sdk-integration, pinned in tests/sdk-integration/requirements.txt).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
VERSION="2.8.0"
SDIST_SHA256="4364d58d8bfd51880efefc6ab08eb17983ffbede3807420536f4bbd6662afa37"
VENV="$ROOT/.venv-sdk-integration"
REQUIREMENTS="$ROOT/tests/sdk-integration/requirements.txt"

stamp="$(sha256sum "$REQUIREMENTS" | cut -d' ' -f1)"
if [ ! -x "$VENV/bin/python" ] || [ "$(cat "$VENV/.requirements-sha256" 2>/dev/null)" != "$stamp" ]; then
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check -r "$REQUIREMENTS"
  echo "$stamp" > "$VENV/.requirements-sha256"
fi

WORK="$(mktemp -d /tmp/tessera-sdk-integration-XXXXXX)"
database=""
cleanup() {
  if [ -n "$database" ]; then
    (cd "$ROOT/apps/server" && node -e "const pg=require('pg');const c=new pg.Client(process.argv[1]);c.connect().then(()=>c.query('drop database if exists $database with (force)')).finally(()=>c.end())" "$DATABASE_URL_ADMIN") || true
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT

# The sdist, as PyPI serves it, and nothing else: the pinned version, its published checksum.
"$VENV/bin/pip" download --quiet --disable-pip-version-check --no-deps --no-binary :all: "argilla==$VERSION" -d "$WORK/download"
sdist="$WORK/download/argilla-$VERSION.tar.gz"
actual="$(sha256sum "$sdist" | cut -d' ' -f1)"
if [ "$actual" != "$SDIST_SHA256" ]; then
  echo "argilla-$VERSION.tar.gz has sha256 $actual, expected $SDIST_SHA256: refusing to run it"; exit 1
fi
mkdir "$WORK/suite"
tar -xzf "$sdist" -C "$WORK/suite"

if [ -n "${DATABASE_URL:-}" ]; then
  # A fresh database on that server for this run (dropped at the end), as the embedded store gets a fresh data dir.
  export DATABASE_URL_ADMIN="$DATABASE_URL"
  database="tessera_sdk_integration_$$"
  (cd "$ROOT/apps/server" && node -e "const pg=require('pg');const c=new pg.Client(process.argv[1]);c.connect().then(()=>c.query('create database $database')).finally(()=>c.end())" "$DATABASE_URL")
  export DATABASE_URL="${DATABASE_URL%/*}/$database"
fi

TESSERA_NODE="$(command -v node)" "$VENV/bin/python" "$ROOT/tests/sdk-integration/run_suite.py" --suite "$WORK/suite/argilla-$VERSION"

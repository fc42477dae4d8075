#!/usr/bin/env bash
# PostgreSQL: starts a throw-away PostgreSQL 15 cluster (initdb into a temp dir, 127.0.0.1 only, a
# free port; as the postgres user when run as root), runs the server's vitest suite against it
# (TESSERA_TEST_DATABASE_URL: every test server gets its own database copied from a migrated
# template) and the official SDK suite against the built server on a PostgreSQL database, then
# stops and removes the cluster, also on failure. Needs the build (30) and the SDK venv (50).
set -euo pipefail
cd "$TESSERA_ROOT"
PG_BIN="${TESSERA_PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)}"
if [ -z "$PG_BIN" ] || [ ! -x "$PG_BIN/initdb" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get install -y -qq postgresql >/dev/null
    PG_BIN="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)"
  else
    echo "PostgreSQL server binaries not found (set TESSERA_PG_BIN or install Debian's postgresql)"; exit 1
  fi
fi

DIR="$(mktemp -d /tmp/tessera-pg-XXXXXX)"
PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
cleanup() {
  as_pg "$PG_BIN/pg_ctl" -D "$DIR/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$DIR"
}
trap cleanup EXIT
[ "$(id -u)" = 0 ] && chown postgres "$DIR"
as_pg "$PG_BIN/initdb" -D "$DIR/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
as_pg "$PG_BIN/pg_ctl" -D "$DIR/data" -l "$DIR/postgres.log" -w -o "-c listen_addresses=127.0.0.1 -p $PORT -k $DIR -c max_connections=300 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" start >/dev/null
export TESSERA_TEST_DATABASE_URL="postgres://postgres@127.0.0.1:$PORT/postgres"
echo "PostgreSQL $("$PG_BIN/postgres" --version | awk '{print $3}') on 127.0.0.1:$PORT"

# The server suite. src/security checks the embedded SQLite file byte for byte, so it stays on stage 20.
(cd apps/server && pnpm exec vitest run --exclude 'src/security/**' --maxWorkers=2)

# The SDK suite against the built server on a fresh PostgreSQL database.
psql_url="postgres://postgres@127.0.0.1:$PORT"
(cd apps/server && node -e "const pg=require('pg');const c=new pg.Client('$psql_url/postgres');c.connect().then(()=>c.query('create database tessera_sdk')).then(()=>c.end())")
if [ ! -f "/usr/share/postgresql/$(basename "$(dirname "$PG_BIN")")/extension/vector.control" ]; then
  export TESSERA_SDK_NO_PGVECTOR="this PostgreSQL has no pgvector: similarity is covered by stage 50 (SQLite) and by the server suite on PGlite with pgvector"
fi
DATABASE_URL="$psql_url/tessera_sdk" TESSERA_NODE="$(command -v node)" .venv/bin/python -m pytest -q -p no:cacheprovider tests/sdk "$@"
DATABASE_URL="$TESSERA_TEST_DATABASE_URL" bash tools/scripts/sdk-integration.sh  # the argilla SDK's own integration suite on a fresh database of this PostgreSQL

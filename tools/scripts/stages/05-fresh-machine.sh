#!/usr/bin/env bash
# A fresh machine runs the README's start command (issue 18). In a copy of this checkout (the
# committed and uncommitted files, no node_modules, no .tools), with an empty home directory and
# empty caches (npm, pnpm store, corepack, node-gyp, pip), and every download going through a proxy
# that lets only the package registries through (tools/scripts/registry-proxy.mjs):
#   1. `./tessera install` succeeds (building the text ranking extension, apps/server/native), and `./tessera start`
#      serves the app with it loaded (first start timed);
#   2. a second `./tessera start` (a restart on an installed checkout) is timed;
#   3. the SDK's virtual environment installs from PyPI alone;
#   4. the proxy saw the registries and nothing else (any "deny" line fails the stage);
#   5. a failing set-up step (registry refused) exits non-zero and prints the step's name and its
#      real error, for the Node download and for the workspace install; a machine without the
#      tools that build native modules (and no apt-get to install them) fails naming them, and a
#      failing build stops `./tessera start` naming the step and showing the error.
set -euo pipefail
ROOT="$TESSERA_ROOT"
DIR="$(mktemp -d /tmp/tessera-fresh-XXXXXX)"
proxy_pid=""; server_pid=""
cleanup() {
  [ -n "$server_pid" ] && kill -- "-$server_pid" 2>/dev/null || true
  [ -n "$proxy_pid" ] && kill "$proxy_pid" 2>/dev/null || true
  rm -rf "$DIR"
}
trap cleanup EXIT
fail() { echo "fresh machine: $*" >&2; exit 1; }

# The checkout as a fresh clone would have it (plus uncommitted changes, so it tests what is here).
mkdir -p "$DIR/clone" "$DIR/home"
(cd "$ROOT" && git ls-files -z --cached --others --exclude-standard | tar --null --ignore-failed-read -T - -cf -) | tar -xf - -C "$DIR/clone"

# The system's PATH, without the project's Node and pnpm that test-all.sh put first.
SYSTEM_PATH="$(echo "$PATH" | tr ':' '\n' | grep -v '/\.tools/' | paste -sd: -)"
proxy_node="$(PATH="$SYSTEM_PATH" command -v node)"
"$proxy_node" "$ROOT/tools/scripts/registry-proxy.mjs" "$DIR/proxy.log" "$DIR/proxy.port" &
proxy_pid=$!
for _ in $(seq 50); do [ -s "$DIR/proxy.port" ] && break; sleep 0.1; done
[ -s "$DIR/proxy.port" ] || fail "the registry proxy did not start"
PROXY="http://127.0.0.1:$(cat "$DIR/proxy.port")"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# A new machine: empty home and caches, the system's PATH, nothing the parent exported for builds.
FRESH_ENV=(env -u npm_config_nodedir -u npm_config_build_from_source -u PIP_FIND_LINKS -u npm_config_store_dir -u npm_config_devdir
  -u VIRTUAL_ENV -u PYTHONPATH -u TESSERA_ROOT
  HOME="$DIR/home" PATH="$SYSTEM_PATH"
  XDG_CACHE_HOME="$DIR/home/.cache" XDG_DATA_HOME="$DIR/home/.local/share" XDG_CONFIG_HOME="$DIR/home/.config"
  XDG_STATE_HOME="$DIR/home/.local/state" npm_config_cache="$DIR/home/.npm" COREPACK_HOME="$DIR/home/.cache/node/corepack"
  PIP_CACHE_DIR="$DIR/home/.cache/pip"
  HTTPS_PROXY="$PROXY" HTTP_PROXY="$PROXY" https_proxy="$PROXY" http_proxy="$PROXY"
  npm_config_proxy="$PROXY" npm_config_https_proxy="$PROXY" NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost)
fresh() { "${FRESH_ENV[@]}" "$@"; }

# Starts `./tessera start` in the clone (its own process group) and sets SERVED_AFTER to the
# seconds until the app answers.
SERVED_AFTER=""
start_and_time() {
  local port; port="$(free_port)"
  local t0; t0=$(date +%s.%N)
  cd "$DIR/clone"
  setsid "${FRESH_ENV[@]}" TESSERA_PORT="$port" TESSERA_DATA_DIR="$DIR/data" TESSERA_FAKE_HUB_PORT="$(free_port)" \
    ./tessera start >"$DIR/start.log" 2>&1 </dev/null &
  server_pid=$!
  cd "$ROOT"
  for _ in $(seq 1800); do
    if curl -fsS "http://127.0.0.1:$port/" -o /dev/null 2>/dev/null; then
      SERVED_AFTER="$(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$t0" "$(date +%s.%N)")"
      kill -- "-$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; server_pid=""
      return 0
    fi
    if ! kill -0 "$server_pid" 2>/dev/null; then
      echo "fresh machine: ./tessera start exited before serving; its output:" >&2; tail -n 60 "$DIR/start.log" >&2; return 1
    fi
    sleep 0.2
  done
  echo "fresh machine: ./tessera start did not serve within 6 minutes; its output:" >&2; tail -n 60 "$DIR/start.log" >&2; return 1
}

echo "fresh machine: ./tessera install in $DIR/clone (empty home, registries only)"
t0=$(date +%s)
(cd "$DIR/clone" && fresh ./tessera install) || fail "./tessera install failed on a fresh machine (output above)"
echo "fresh machine: install took $(( $(date +%s) - t0 )) s"
# The server's text ranking extension (apps/server/native) is compiled by the install from the checkout alone.
[ -f "$DIR/clone/apps/server/native/build/tessera_rank.so" ] || fail "the install did not build the text ranking extension (apps/server/native/build.mjs)"
start_and_time || fail "./tessera start failed on a fresh machine"
echo "fresh machine: first ./tessera start (build, database, demo data) served after $SERVED_AFTER s"
if grep -q "ranking with FTS5's bm25()" "$DIR/start.log"; then
  tail -n 20 "$DIR/start.log" >&2
  fail "the server did not load the text ranking extension"
fi
start_and_time || fail "./tessera start failed on restart"
echo "fresh machine: restart of ./tessera start served after $SERVED_AFTER s"

# A build that fails (a syntax error in the server) stops the start, naming the step and showing the error.
cp "$DIR/clone/apps/server/src/main.ts" "$DIR/main.ts.orig"
echo "const = ;" >>"$DIR/clone/apps/server/src/main.ts"
rc=0
(cd "$DIR/clone" && fresh env TESSERA_PORT="$(free_port)" TESSERA_DATA_DIR="$DIR/data" TESSERA_OFFLINE_HUB=0 ./tessera start) >"$DIR/failure-build.log" 2>&1 </dev/null || rc=$?
cp "$DIR/main.ts.orig" "$DIR/clone/apps/server/src/main.ts"
[ "$rc" -ne 0 ] || { cat "$DIR/failure-build.log" >&2; fail "a start whose build fails still exited 0"; }
grep -q "set-up step 'build' failed" "$DIR/failure-build.log" && grep -q "main.ts" "$DIR/failure-build.log" ||
  { cat "$DIR/failure-build.log" >&2; fail "a failing build did not name the step and show the error"; }
echo "fresh machine: a failing build stops ./tessera start with the step's name and the error (exit $rc)"

echo "fresh machine: the SDK's virtual environment from PyPI alone"
(cd "$DIR/clone" && fresh python3 -m venv "$DIR/venv" && fresh "$DIR/venv/bin/pip" install --disable-pip-version-check -q -r tests/sdk/requirements.txt) \
  || fail "the SDK's virtual environment did not install on a fresh machine"

if grep -q '^deny ' "$DIR/proxy.log"; then
  echo "fresh machine: the install reached hosts that are not package registries:" >&2
  grep '^deny ' "$DIR/proxy.log" | sort | uniq -c >&2
  exit 1
fi
grep -q '^allow registry.npmjs.org$' "$DIR/proxy.log" || fail "the install did not go through the registry proxy (so the check above proves nothing)"
grep -q '^allow files.pythonhosted.org$' "$DIR/proxy.log" || fail "pip did not go through the registry proxy"
echo "fresh machine: hosts reached: $(sort -u "$DIR/proxy.log" | awk '{print $2}' | paste -sd' ' -)"

# A failing step must say which step failed and why, and exit non-zero.
expect_failure() {
  local step="$1"; shift
  local out="$DIR/failure-$step.log" rc=0
  (cd "$DIR/clone" && fresh env npm_config_registry=http://127.0.0.1:9/ npm_config_fetch_retries=0 \
    npm_config_fetch_retry_mintimeout=100 npm_config_fetch_retry_maxtimeout=200 npm_config_store_dir="$DIR/empty-store" \
    "$@") >"$out" 2>&1 || rc=$?
  [ "$rc" -ne 0 ] || { cat "$out" >&2; fail "a refused registry during '$step' still exited 0"; }
  grep -q "set-up step '$step' failed" "$out" || { cat "$out" >&2; fail "the failure of '$step' did not name the step"; }
  grep -q "ECONNREFUSED" "$out" || { cat "$out" >&2; fail "the failure of '$step' did not show the real error (ECONNREFUSED)"; }
  echo "fresh machine: a refused registry during '$step' fails with its name and error (exit $rc)"
}
rm -rf "$DIR/clone/node_modules"
expect_failure pnpm-install ./tessera install

# A machine without a C++ compiler or make (needed to build the native modules from source) and no
# apt-get to install them: the install stops first, naming the step and what is missing.
mkdir -p "$DIR/no-build-tools"
for dir in $(echo "$SYSTEM_PATH" | tr ':' ' '); do
  for tool in "$dir"/*; do
    name="$(basename "$tool")"
    case "$name" in c++ | g++ | g++-* | cc | gcc | gcc-* | make | apt-get | sudo) continue ;; esac
    if [ -x "$tool" ] && [ ! -e "$DIR/no-build-tools/$name" ]; then ln -s "$tool" "$DIR/no-build-tools/$name"; fi
  done
done
rc=0
(cd "$DIR/clone" && fresh env PATH="$DIR/no-build-tools" ./tessera install) >"$DIR/failure-build-tools.log" 2>&1 || rc=$?
[ "$rc" -ne 0 ] || { cat "$DIR/failure-build-tools.log" >&2; fail "an install without a C++ compiler or make still exited 0"; }
grep -q "set-up step 'build-tools' failed: c++ make missing" "$DIR/failure-build-tools.log" ||
  { cat "$DIR/failure-build-tools.log" >&2; fail "an install without a C++ compiler or make did not name the step and what is missing"; }
echo "fresh machine: without a C++ compiler, make or apt-get the install fails naming them (exit $rc)"
rm -rf "$DIR/clone/.tools"
expect_failure node ./tessera start
echo "fresh machine: all checks passed"

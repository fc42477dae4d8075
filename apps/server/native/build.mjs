// Compiles the ranking extension (tessera_rank.c, an SQLite loadable extension: FTS5's bm25 without its
// whole-table counts, issue 31) into native/build/tessera_rank.so, against the headers of the SQLite that
// better-sqlite3 is built with (its deps/sqlite3), with the machine's C compiler ($CC, cc, gcc or clang).
// Run by the server package's install script and by its build; nothing is downloaded. Without a compiler,
// or if the compilation fails, it says so and exits 0: the server then ranks with FTS5's bm25() as before
// (search/rank-extension.ts logs it once and GET /api/v1/status shows it).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, renameSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const source = join(here, "tessera_rank.c");
const out = join(here, "build", "tessera_rank.so");
const require = createRequire(import.meta.url);
const headers = join(dirname(require.resolve("better-sqlite3/package.json")), "deps", "sqlite3");
const header = join(headers, "sqlite3ext.h");

const mtime = (file) => (existsSync(file) ? statSync(file).mtimeMs : 0);
if (mtime(out) > Math.max(mtime(source), mtime(header), mtime(fileURLToPath(import.meta.url)))) process.exit(0); // up to date

const skip = (why) => {
  console.warn(
    `tessera: the text ranking extension was not built (${why}); text search ranks with FTS5's bm25() instead (slower at 1M records)`,
  );
  process.exit(0);
};
if (!existsSync(header)) skip(`no SQLite headers in ${headers}`);
const compilers = [process.env.CC, "cc", "gcc", "clang"].filter(Boolean);
const compiler = compilers.find((cc) => spawnSync(cc, ["--version"], { stdio: "ignore" }).status === 0);
if (!compiler) skip(`no C compiler: ${compilers.join(", ")}`);
mkdirSync(dirname(out), { recursive: true });
// Written beside, then renamed: a server starting meanwhile loads the old file or the new one, never half of one.
const partial = `${out}.${process.pid}.tmp`;
const args = ["-O2", "-fPIC", "-shared", "-I", headers, source, "-o", partial, "-lm"];
const run = spawnSync(compiler, args, { encoding: "utf8" });
if (run.status !== 0) {
  rmSync(partial, { force: true });
  process.stderr.write(run.stderr ?? "");
  skip(`${compiler} ${args.join(" ")} failed`);
}
renameSync(partial, out);

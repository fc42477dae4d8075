/**
 * The V8 and C-library settings the server process runs with, for its resident memory (the whole
 * process, every thread: docs/performance.md, "Memory"). Both must be set when the process starts,
 * so `node dist/main.js` replaces itself once, at its first line, by the same command with them
 * (`process.execve`: same process id, same standard streams; nothing has run yet):
 *
 * - `--max-semi-space-size`: V8's young generation of the request thread. Its default lets it grow
 *   to 3 x 32 MB semi-spaces resident; 8 MB costs no measurable CPU per call.
 * - `MALLOC_ARENA_MAX`: the C library's malloc keeps a heap (an arena) per thread that allocates
 *   concurrently, up to 8 per core; SQLite's page caches, FTS5's pending terms and sorters on the
 *   text indexer, text match and checkpoint threads each left tens of MB free-but-resident in arenas
 *   of their own. 2 arenas keep that memory reused across threads.
 * - `MALLOC_MMAP_THRESHOLD_`: allocations from 128 KB up get pages of their own, returned to the
 *   system when freed (glibc otherwise raises this threshold up to 32 MB after the first such frees,
 *   and large short-lived buffers then fragment the heaps).
 *
 * Kept as given: an explicit `--max-semi-space-size` on the command line, `MALLOC_*` variables in the
 * environment, and `TESSERA_PROCESS_TUNING=0` (no re-execution at all).
 */
export const MAIN_SEMI_SPACE_MIB = 8;
export const MALLOC_ARENAS = 2;
export const MALLOC_MMAP_THRESHOLD = 128 * 1024;
/** Set in the environment of the re-executed process (and never re-executed again). */
export const TUNED_MARKER = "TESSERA_PROCESS_TUNED";

export interface Command {
  execArgv: string[];
  /** The script and its arguments (process.argv without the executable). */
  argv: string[];
  env: Record<string, string | undefined>;
}

/** The command the process should re-execute itself with, or null when it runs tuned already (or must not be re-executed). */
export function tunedCommand(current: Command): Command | null {
  const { env } = current;
  if (env[TUNED_MARKER] === "1" || env.TESSERA_PROCESS_TUNING === "0") return null;
  const hasSemiSpace = current.execArgv.some((a) => a.startsWith("--max-semi-space-size"));
  const execArgv = hasSemiSpace ? current.execArgv : [`--max-semi-space-size=${MAIN_SEMI_SPACE_MIB}`, ...current.execArgv];
  const mallocSet = Object.keys(env).some((k) => k.startsWith("MALLOC_") || k.startsWith("GLIBC_TUNABLES"));
  const tuned: Record<string, string | undefined> = { ...env, [TUNED_MARKER]: "1" };
  if (!mallocSet) Object.assign(tuned, { MALLOC_ARENA_MAX: String(MALLOC_ARENAS), MALLOC_MMAP_THRESHOLD_: String(MALLOC_MMAP_THRESHOLD) });
  return { execArgv, argv: current.argv, env: tuned };
}

/**
 * Re-executes the process with `tunedCommand` when needed (Linux and macOS; elsewhere, or should
 * execve fail, the process goes on untuned). Call it first: nothing of the process survives it.
 */
export function tuneProcess(): void {
  const command = tunedCommand({ execArgv: process.execArgv, argv: process.argv.slice(1), env: process.env });
  if (!command || typeof process.execve !== "function" || process.platform === "win32") return;
  const env = Object.fromEntries(Object.entries(command.env).filter((e): e is [string, string] => e[1] !== undefined));
  try {
    process.execve(process.execPath, [process.execPath, ...command.execArgv, ...command.argv], env);
  } catch {
    /* not supported here: run untuned */
  }
}

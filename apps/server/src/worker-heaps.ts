import { setFlagsFromString } from "node:v8";

/**
 * Largest semi-space of the young generation of every worker thread's V8 heap, MiB. V8's default
 * lets a busy worker's young generation grow to 64 MB resident (3 x 32 MB semi-spaces at most), and
 * the server has up to four workers (text indexer, checkpointer, read threads), whose work is
 * in SQLite, not in JavaScript objects (docs/performance.md, "Memory").
 */
export const WORKER_SEMI_SPACE_MIB = 4;

/**
 * Caps the young generation of the V8 heaps created from now on: the worker threads'. V8 reads the
 * flag when it sets up a heap, so the request thread's own heap (set up at start) keeps the command
 * line's value (`--max-semi-space-size`, set by `./tessera start`; docs/deployment.md).
 * Call it before the store starts its threads.
 */
export function limitWorkerHeaps(semiSpaceMib = WORKER_SEMI_SPACE_MIB): void {
  setFlagsFromString(`--max-semi-space-size=${semiSpaceMib}`);
}

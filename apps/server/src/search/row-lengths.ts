/**
 * A read thread's table of every FTS row's length in a dataset's seqs (the ranking extension's tessera_lengths_load,
 * native/tessera_rank.c), for a plain word's deep read (sqlite-text-deep.ts): it reads ~10% of a dataset's rows in seq
 * order, ~1 record in 9, where the docsize cursor seeks for every row (1M records, a word in 11% of them: a half's read
 * 60-100 ms of a thread's CPU, ~65 of it the seeks; from the table 26-30). Loaded when the text index settles (warm-up.ts,
 * sqlite-row-lengths.ts) and after a deep read at a new index version, in batches between the thread's other jobs (1M records: ~260 ms of the thread's CPU, ~4 bytes a row and a
 * seq), each in a read transaction at that version (abandoned when the index moves); the next deep read at that
 * version reads its lengths from it. Self-contained functions (no closure, no import): the read threads evaluate their
 * source (sqlite-read-pool.ts).
 */

/** Seqs a batch loads (1M records: ~17 ms of the thread's CPU). */
export const LENGTH_BATCH_SEQS = 65_536;

/** The table being loaded or loaded: the seqs lo..hi at the thread's index generation, those before `next` loaded. */
export interface RowLengths {
  generation: number;
  lo: number;
  hi: number;
  next: number;
}

/** Whether `state` holds every row's length of the seqs lo..hi at `generation`. */
export function rowLengthsReady(state: RowLengths | null, generation: number, lo: number, hi: number): boolean {
  return state !== null && state.generation === generation && state.lo <= lo && state.hi >= hi && state.next > state.hi;
}

/**
 * Loads the next batch of `state` with `load` (tessera_lengths_load's arguments: generation, lo, hi, from, to; it
 * answers the next seq to load): whether there is more to load.
 */
export function loadRowLengths(
  state: RowLengths,
  load: (generation: number, lo: number, hi: number, from: number, to: number) => number,
  batch: number,
): boolean {
  state.next = load(state.generation, state.lo, state.hi, state.next, Math.min(state.hi, state.next + batch - 1));
  return state.next <= state.hi;
}

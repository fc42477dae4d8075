/**
 * The order of a text search that is not one plain word (several words, a prefix `word*`, one field, a
 * non-ASCII word) on the embedded store (issue 31): FTS5's bm25 scores every match of a query whatever
 * the LIMIT (two words in 60% of 1M records: ~380 ms of CPU, a short prefix of many words: seconds),
 * and such queries cannot be ranked ahead as single words are. So the dataset's records are cut into
 * windows of consecutive records (seqs), each window's matches ordered by score (bm25, then rowid: a
 * record's first row is its best field), the windows in record order: the first window ends before the
 * (`window` + 1)-th matching record, the next ones are as wide (in seqs) as the first. A query matching
 * at most `window` records (every rare combination) has exactly the order of FTS5's full ranking.
 * Reading a window costs bm25 of its rows only (one statement, in rowid order), and gives the first
 * matching records in record order for the bounded total at the same time (the read threads read
 * the records a bounded total needs beyond the windows without bm25); a record's window follows
 * from its seq alone (windowOf), so a few candidate records can be ordered without the others.
 *
 * Self-contained (no closure, no import; its steps passed in, WINDOW_STEPS): the read threads evaluate
 * rankWindows' source and its steps' (sqlite-read-pool.ts), the request thread calls it (sqlite-text.ts),
 * so both give the same rows.
 */
export interface WindowedRows {
  /**
   * Every row (rowid, bm25) of the whole windows read, in the order, those of records before `from` left out; at least `k`
   * of them unless that is all of them (`complete`). Whole windows: a page that needs more reads on after them (`next`).
   */
  fr: Float64Array;
  bm: Float64Array;
  complete: boolean;
  /** The seq where the window after those read starts (a read of the windows after them begins there), null when `complete`. */
  next: number | null;
  /** The distinct matching seqs read, in record order (the windows read, and the next matching record), `prefixComplete` when all. */
  prefix: Uint32Array;
  prefixComplete: boolean;
  /** Seqs per window (the first window's width), or 0 when one window holds every match. */
  width: number;
  /** FTS rows taken from `rows` (those of records before `from` too, which are not scored). */
  read: number;
}

/**
 * `rows`: the query's FTS rows (rowid, bm25) in rowid order from the range's first record `lo` (a seq), or (`width` > 0)
 * from the first record of a later window (the windows after those read before). Reads whole windows until at least `k`
 * of their rows are known (at least one window) and at least `prefixWanted` matching records (a bounded total's walk)
 * are read. Rows of records before `from` are read (their seqs listed) but left out of the windows: no record of the
 * caller's queue lies before it (a team's completed head), so they need no score. `steps`: WINDOW_STEPS (the read
 * threads pass the same functions evaluated from their source, where module names do not resolve).
 */
export function rankWindows(
  rows: Iterable<[number, number]>,
  k: number,
  window: number,
  lo: number,
  prefixWanted = 0,
  steps: WindowSteps = WINDOW_STEPS,
  from = 0,
  width = 0,
): WindowedRows {
  const fr: number[] = [];
  const bm: number[] = [];
  let seqs: Uint32Array = new Uint32Array(Math.min(window, 1 << 16) + 1);
  let nSeqs = 0;
  /** Rows of the window being read, and that window's index. */
  let winFr: number[] = [];
  let winBm: number[] = [];
  let current = 0;
  let exhausted = true;
  let read = 0;
  /** The window read is whole: its rows kept in order, the next one started. */
  const endWindow = (): void => {
    steps.sortWindow(winFr, winBm, fr, bm);
    winFr = [];
    winBm = [];
  };
  for (const [rowid, score] of rows) {
    read++;
    const seq = Math.floor(rowid / 1024);
    if (nSeqs === 0 || seqs[nSeqs - 1] !== seq) {
      seqs = steps.appendSeq(seqs, nSeqs++, seq);
      // The (window + 1)-th matching record starts the second window and sets the windows' width.
      if (width === 0 && nSeqs === window + 1) width = seq - lo;
      const win = steps.windowOf(seq, lo, width);
      // The first record read: its window is the first read (a later one when the width was given).
      if (nSeqs === 1) current = win;
      else if (win !== current) {
        // The window is whole: ordered; stop once k rows are kept (this record is the next one in record order).
        endWindow();
        current = win;
        if (fr.length >= k && nSeqs > prefixWanted) {
          exhausted = false;
          break;
        }
      }
    }
    if (seq < from) continue;
    winFr.push(rowid);
    winBm.push(score);
  }
  if (exhausted) endWindow();
  return {
    fr: Float64Array.from(fr),
    bm: Float64Array.from(bm),
    complete: exhausted,
    next: exhausted ? null : lo + current * width,
    prefix: seqs.slice(0, nSeqs),
    prefixComplete: exhausted,
    width,
    read,
  };
}

/** The SQL of a query's FTS rows (the range's, `field`'s when not null) and its parameters (the expression, the rowid range). */
export interface FtsRows {
  /** `records_fts WHERE records_fts MATCH ? AND rowid BETWEEN ...`, without the field. */
  from: string;
  params: unknown[];
  /** The field's name, or its position in every record (sqlite-text-field.ts). */
  field: string | number | null;
}

/**
 * rankWindows read by the ranking extension (`tessera_window`, native/tessera_rank.c: the same steps in C, the rows scored
 * with tessera_bm25's `scoreArgs`): the statement's rows never reach JavaScript, where each cost a row array, an iterator
 * step and a call back into JavaScript (~0.6 of ~2.5 us a row at 1M records, session 15's profile). The same answer as
 * rankWindows over `SELECT rowid, tessera_bm25(...) ... ORDER BY rowid` (text-window.test.ts). Self-contained (the read
 * threads evaluate its source).
 */
export function extensionWindows(
  prepare: (sql: string) => { pluck(): { get(...params: unknown[]): unknown } },
  rows: FtsRows,
  scoreArgs: number[],
  k: number,
  window: number,
  lo: number,
  prefixWanted = 0,
  /**
   * Names the index version being read (the read transaction's): the rows' lengths are kept between calls of one generation
   * (native/tessera_rank.c' lengthOf: the next query's windows read mostly the same rows); 0 keeps none.
   */
  generation = 0,
  /** rankWindows' `from` and `width`. */
  from = 0,
  width = 0,
): WindowedRows {
  const call = `tessera_window(records_fts, ?, ?, ?, ?, ?, ?, ?${", ?".repeat(scoreArgs.length)})`;
  // The field tested first (a CASE: SQLite may test a WHERE's terms in any order), so only its rows reach the windows.
  const test =
    rows.field !== null ? `CASE WHEN ${typeof rows.field === "number" ? "(rowid & 1023) = ?" : "field = ?"} THEN ${call} ELSE 0 END` : call;
  let blob: Uint8Array;
  try {
    prepare(`SELECT 1 FROM ${rows.from} AND ${test} LIMIT 1`)
      .pluck()
      .get(
        ...rows.params,
        ...(rows.field !== null ? [rows.field] : []),
        k,
        window,
        lo,
        prefixWanted,
        generation,
        from,
        width,
        ...scoreArgs,
      );
  } finally {
    // Read (and so forgotten by the connection) even when the statement failed.
    blob = prepare("SELECT tessera_window_result()").pluck().get() as Uint8Array;
  }
  const d = new Float64Array(Uint8Array.from(blob).buffer);
  const kept = d[0]!;
  const seqs = d[1]!;
  const exhausted = d[4] === 1;
  return {
    fr: d.slice(6, 6 + kept),
    bm: d.slice(6 + kept, 6 + 2 * kept),
    complete: exhausted,
    next: exhausted ? null : d[5]!,
    prefix: Uint32Array.from(d.subarray(6 + 2 * kept, 6 + 2 * kept + seqs)),
    prefixComplete: exhausted,
    width: d[2]!,
    read: d[3]!,
  };
}

/**
 * A whole window's rows appended to `fr` / `bm` in the order's order (bm25, then rowid). Self-contained (rankWindows'
 * step). A sort with a comparator (~3-7 ms for a 10,000-record window): only without the ranking extension, whose C
 * windows sort alike.
 */
export function sortWindow(winFr: number[], winBm: number[], fr: number[], bm: number[]): void {
  const order = winFr.map((_, i) => i);
  order.sort((a, b) => winBm[a]! - winBm[b]! || winFr[a]! - winFr[b]!);
  for (const i of order) {
    fr.push(winFr[i]!);
    bm.push(winBm[i]!);
  }
}

/** `seq` written at `at` of `seqs`, grown (doubled) when full: the array to go on with. Self-contained (rankWindows' step). */
export function appendSeq(seqs: Uint32Array, at: number, seq: number): Uint32Array {
  let out = seqs;
  if (at === out.length) {
    out = new Uint32Array(seqs.length * 2);
    out.set(seqs);
  }
  out[at] = seq;
  return out;
}

/** The window of a record (rankWindows' `width` and `lo`): 0 for every record when one window holds every match. */
export const windowOf = (seq: number, lo: number, width: number): number => (width === 0 ? 0 : Math.floor((seq - lo) / width));

/** What rankWindows calls (passed in: the read threads evaluate its source). */
export interface WindowSteps {
  sortWindow: typeof sortWindow;
  appendSeq: typeof appendSeq;
  windowOf: typeof windowOf;
}
export const WINDOW_STEPS: WindowSteps = { sortWindow, appendSeq, windowOf };

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
 * Self-contained (no closure, no import): the read threads evaluate rankWindows' source
 * (sqlite-read-pool.ts), the request thread calls it (sqlite-text.ts), so both give the same rows.
 */
export interface WindowedRows {
  /** The first `k` FTS rows of the order (rowid, bm25), fewer when that is all of them (`complete`). */
  fr: Float64Array;
  bm: Float64Array;
  complete: boolean;
  /** The distinct matching seqs read, in record order (the windows read, and the next matching record), `prefixComplete` when all. */
  prefix: Uint32Array;
  prefixComplete: boolean;
  /** Seqs per window (the first window's width), or 0 when one window holds every match. */
  width: number;
  /** FTS rows taken from `rows` (each scored by bm25 in the statement that gives them). */
  read: number;
}

/**
 * `rows`: the query's FTS rows (rowid, bm25) in rowid order from the range's first record `lo` (a seq).
 * Reads whole windows until `k` rows of the order are known (at least one window) and at least
 * `prefixWanted` matching records (a bounded total's walk) are read.
 */
export function rankWindows(rows: Iterable<[number, number]>, k: number, window: number, lo: number, prefixWanted = 0): WindowedRows {
  const fr: number[] = [];
  const bm: number[] = [];
  let seqs = new Uint32Array(Math.min(window, 1 << 16) + 1);
  let nSeqs = 0;
  /** Rows of the window being read, and that window's index. */
  let winFr: number[] = [];
  let winBm: number[] = [];
  let current = 0;
  let width = 0;
  let exhausted = true;
  let read = 0;
  /** Rows of the windows read (the order keeps the first k of them). */
  let total = 0;
  const flush = (): void => {
    const want = k - fr.length;
    total += winFr.length;
    if (want > 0) {
      let order = winFr.map((_, i) => i);
      if (want < order.length) {
        // Only the window's best `want` rows are kept: those with a score up to the want-th best (a numeric sort of the
        // scores alone), then ordered; a full sort of a 10,000-record window with a comparator cost ~3-7 ms.
        const scores = Float64Array.from(winBm).sort();
        const bound = scores[want - 1]!;
        order = order.filter((i) => winBm[i]! <= bound);
      }
      order.sort((a, b) => winBm[a]! - winBm[b]! || winFr[a]! - winFr[b]!);
      for (const i of order.slice(0, want)) {
        fr.push(winFr[i]!);
        bm.push(winBm[i]!);
      }
    }
    winFr = [];
    winBm = [];
  };
  for (const [rowid, score] of rows) {
    read++;
    const seq = Math.floor(rowid / 1024);
    if (nSeqs === 0 || seqs[nSeqs - 1] !== seq) {
      if (nSeqs === seqs.length) {
        const grown = new Uint32Array(seqs.length * 2);
        grown.set(seqs);
        seqs = grown;
      }
      seqs[nSeqs++] = seq;
      // The (window + 1)-th matching record starts the second window and sets the windows' width.
      if (width === 0 && nSeqs === window + 1) width = seq - lo;
      const win = width === 0 ? 0 : Math.floor((seq - lo) / width);
      if (win !== current) {
        // The window is whole: ordered; stop once it holds the k-th row (this record is the next one in record order).
        flush();
        current = win;
        if (total >= k && nSeqs > prefixWanted) {
          exhausted = false;
          break;
        }
      }
    }
    winFr.push(rowid);
    winBm.push(score);
  }
  if (exhausted) flush();
  return {
    fr: Float64Array.from(fr),
    bm: Float64Array.from(bm),
    complete: exhausted && total <= k,
    prefix: seqs.slice(0, nSeqs),
    prefixComplete: exhausted,
    width,
    read,
  };
}

/** The window of a record (rankWindows' `width` and `lo`): 0 for every record when one window holds every match. */
export const windowOf = (seq: number, lo: number, width: number): number => (width === 0 ? 0 : Math.floor((seq - lo) / width));

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { appendSeq, keepBest, rankWindows, windowOf } from "./text-window.js";

/** FTS rows (rowid = seq * 1024 + field, bm25) in rowid order. */
const row = (seq: number, field: number, bm: number): [number, number] => [seq * 1024 + field, bm];
const rows: [number, number][] = [row(1, 0, -1), row(1, 1, -5), row(2, 0, -2), row(4, 0, -9), row(5, 0, -3), row(5, 1, -3), row(7, 0, -7)];
const fields = (r: ReturnType<typeof rankWindows>) => Array.from(r.fr, (fr, i) => [fr / 1024, r.bm[i]]);

describe("rankWindows", () => {
  it("orders each window of records by score (then rowid), windows in record order", () => {
    const r = rankWindows(rows, 100, 2, 1);
    // From seq 1: the third match (4) ends the first window, 3 seqs wide: records 1, 2 | 4, 5 | 7.
    expect(fields(r)).toEqual([
      [1 + 1 / 1024, -5],
      [2, -2],
      [1, -1],
      [4, -9],
      [5, -3],
      [5 + 1 / 1024, -3],
      [7, -7],
    ]);
    expect(r.complete).toBe(true);
    expect(Array.from(r.prefix)).toEqual([1, 2, 4, 5, 7]);
    expect(r.prefixComplete).toBe(true);
    expect(r.width).toBe(3);
    expect([1, 2, 3, 4, 6, 7, 9].map((seq) => windowOf(seq, 1, r.width))).toEqual([0, 0, 0, 1, 1, 2, 2]);
    // The windows are as wide as the first, in seqs: from seq 0, 4 seqs wide, records 1, 2 | 4, 5, 7.
    const wide = rankWindows(rows, 100, 2, 0);
    expect(wide.width).toBe(4);
    expect(fields(wide).map(([seq]) => Math.floor(seq!))).toEqual([1, 2, 1, 4, 7, 5, 5]);
  });

  it("stops after the window holding the k-th row, with the next record read as the prefix's last", () => {
    const r = rankWindows(rows, 2, 2, 1);
    expect(fields(r)).toEqual([
      [1 + 1 / 1024, -5],
      [2, -2],
    ]);
    expect(r.complete).toBe(false);
    expect(Array.from(r.prefix)).toEqual([1, 2, 4]);
    expect(r.prefixComplete).toBe(false);
    // A bounded total's walk wants more matching records: whole windows are read on until it has them.
    const walked = rankWindows(rows, 2, 2, 1, 4);
    expect(fields(walked)).toEqual(fields(r));
    expect(Array.from(walked.prefix)).toEqual([1, 2, 4, 5, 7]);
    // k past the first window: the second is read whole.
    const more = rankWindows(rows, 4, 2, 1);
    expect(fields(more).map(([seq]) => Math.floor(seq!))).toEqual([1, 2, 1, 4]);
    expect(Array.from(more.prefix)).toEqual([1, 2, 4, 5, 7]);
  });

  it("keeps the first k rows of the whole order, ties (score, then rowid) included, whatever k and the window", () => {
    // Rows in rowid order with few distinct scores (many ties), 1-2 rows per record.
    const arbitraryRows = fc
      .array(fc.tuple(fc.integer({ min: 1, max: 3 }), fc.boolean(), fc.integer({ min: -6, max: -1 })), { maxLength: 300 })
      .map((steps) => {
        const out: [number, number][] = [];
        let seq = 10;
        for (const [gap, two, score] of steps) {
          seq += gap;
          out.push(row(seq, 0, score));
          if (two) out.push(row(seq, 1, score / 2));
        }
        return out;
      });
    fc.assert(
      fc.property(arbitraryRows, fc.integer({ min: 1, max: 400 }), fc.integer({ min: 1, max: 50 }), (input, k, window) => {
        const all = rankWindows(input, Number.MAX_SAFE_INTEGER, window, 10);
        const r = rankWindows(input, k, window, 10);
        expect(Array.from(r.fr)).toEqual(Array.from(all.fr).slice(0, k));
        expect(Array.from(r.bm)).toEqual(Array.from(all.bm).slice(0, k));
        expect(r.complete).toBe(input.length <= k);
      }),
      { numRuns: 300 },
    );
  });

  it("is FTS5's full ranking when one window holds every match", () => {
    const r = rankWindows(rows, 100, 5, 1);
    const full = [...rows].sort((a, b) => a[1] - b[1] || a[0] - b[0]);
    expect(Array.from(r.fr)).toEqual(full.map((x) => x[0]));
    expect(r.complete).toBe(true);
    expect(r.width).toBe(0);
    expect(windowOf(7, 1, 0)).toBe(0);
    expect(rankWindows([], 10, 5, 1)).toMatchObject({ complete: true, prefixComplete: true, prefix: new Uint32Array(0) });
  });
});

describe("rankWindows' steps", () => {
  it("keeps a window's best rows by score, then rowid, up to the rows still wanted", () => {
    const winFr = [5, 1, 9, 3, 7];
    const winBm = [-2, -1, -2, -3, -1];
    const fr: number[] = [10];
    const bm: number[] = [-9];
    keepBest(winFr, winBm, 3, fr, bm);
    expect(fr).toEqual([10, 3, 5, 9]);
    expect(bm).toEqual([-9, -3, -2, -2]);
    keepBest(winFr, winBm, 0, fr, bm);
    keepBest(winFr, winBm, -2, fr, bm);
    expect(fr).toHaveLength(4);
    // More wanted than the window holds: all of it, in order (ties by rowid).
    const all: number[] = [];
    keepBest(winFr, winBm, 10, all, []);
    expect(all).toEqual([3, 5, 9, 1, 7]);
  });

  it("appends seqs, doubling the array when full", () => {
    let seqs: Uint32Array = new Uint32Array(2);
    seqs = appendSeq(seqs, 0, 4);
    seqs = appendSeq(seqs, 1, 6);
    expect(seqs.length).toBe(2);
    seqs = appendSeq(seqs, 2, 9);
    expect(seqs.length).toBe(4);
    expect(Array.from(seqs.subarray(0, 3))).toEqual([4, 6, 9]);
  });
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { appendSeq, rankWindows, sortWindow, WINDOW_STEPS, windowOf } from "./text-window.js";

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

  it("stops after the whole window that holds the k-th row, with the next record read as the prefix's last", () => {
    const r = rankWindows(rows, 2, 2, 1);
    // The first window (records 1, 2) whole: its three rows, though two were asked for.
    expect(fields(r)).toEqual([
      [1 + 1 / 1024, -5],
      [2, -2],
      [1, -1],
    ]);
    expect(r.complete).toBe(false);
    // The next window starts at seq 4 (1 + 3): a read of the windows after these starts there.
    expect(r.next).toBe(4);
    expect(Array.from(r.prefix)).toEqual([1, 2, 4]);
    expect(r.prefixComplete).toBe(false);
    // A bounded total's walk wants more matching records: whole windows are read on until it has them.
    const walked = rankWindows(rows, 2, 2, 1, 4);
    expect(Array.from(walked.prefix)).toEqual([1, 2, 4, 5, 7]);
    expect(fields(walked).slice(0, 3)).toEqual(fields(r));
    // k past the first window: the second is read whole.
    const more = rankWindows(rows, 4, 2, 1);
    expect(fields(more).map(([seq]) => Math.floor(seq!))).toEqual([1, 2, 1, 4, 5, 5]);
    expect([more.next, Array.from(more.prefix)]).toEqual([7, [1, 2, 4, 5, 7]]);
    // The windows after those read: from their first record with the width known, the same rows as in the whole order.
    const after = rankWindows(
      rows.filter(([rowid]) => rowid >= r.next! * 1024),
      100,
      2,
      1,
      0,
      WINDOW_STEPS,
      0,
      r.width,
    );
    expect([...fields(r), ...fields(after)]).toEqual(fields(rankWindows(rows, 100, 2, 1)));
    expect([after.complete, after.next]).toEqual([true, null]);
  });

  it("leaves out the rows of records before `from`, listing their seqs and counting them for the windows' width", () => {
    // From seq 5: records 1, 2 and 4 read, not kept; the windows as wide as without `from` (3 seqs: 1, 2 | 4, 5 | 7).
    const r = rankWindows(rows, 1, 2, 1, 0, WINDOW_STEPS, 5);
    expect(fields(r)).toEqual([
      [5, -3],
      [5 + 1 / 1024, -3],
    ]);
    expect([r.width, r.next, r.complete, r.read]).toEqual([3, 7, false, 7]);
    expect(Array.from(r.prefix)).toEqual([1, 2, 4, 5, 7]);
    // Nothing from `from` on: no row, every record listed.
    const none = rankWindows(rows, 1, 2, 1, 0, WINDOW_STEPS, 8);
    expect([none.fr.length, none.complete, Array.from(none.prefix)]).toEqual([0, true, [1, 2, 4, 5, 7]]);
  });

  it("keeps whole windows of the whole order from `from` on, ties (score, then rowid) included, and goes on after them, whatever k and the window", () => {
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
      fc.property(
        arbitraryRows,
        fc.integer({ min: 1, max: 400 }),
        fc.integer({ min: 1, max: 50 }),
        fc.integer({ min: 0, max: 700 }),
        fc.integer({ min: 1, max: 400 }),
        (input, k, window, from, k2) => {
          const all = rankWindows(input, Number.MAX_SAFE_INTEGER, window, 10);
          const kept = (r: ReturnType<typeof rankWindows>) => Array.from(r.fr, (fr, i) => [fr, r.bm[i]]);
          const order = kept(all).filter(([fr]) => Math.floor(fr! / 1024) >= from);
          const r = rankWindows(input, k, window, 10, 0, WINDOW_STEPS, from);
          // Whole windows: every row of the order before the next window's first record, at least k unless all.
          const end = r.next ?? Infinity;
          expect(kept(r)).toEqual(order.filter(([fr]) => Math.floor(fr! / 1024) < end));
          expect(r.complete).toBe(r.next === null);
          if (!r.complete) expect(r.fr.length).toBeGreaterThanOrEqual(k);
          // The next windows read after them: the order goes on where they end.
          if (r.next !== null) {
            const after = rankWindows(
              input.filter(([rowid]) => rowid >= r.next! * 1024),
              k2,
              window,
              10,
              0,
              WINDOW_STEPS,
              0,
              r.width,
            );
            const both = [...kept(r), ...kept(after)];
            expect(both).toEqual(order.slice(0, both.length));
            if (!after.complete) expect(after.fr.length).toBeGreaterThanOrEqual(k2);
            else expect(both).toEqual(order);
          }
        },
      ),
      { numRuns: 400 },
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
  it("appends a window's rows by score, then rowid", () => {
    const fr: number[] = [10];
    const bm: number[] = [-9];
    sortWindow([5, 1, 9, 3, 7], [-2, -1, -2, -3, -1], fr, bm);
    expect(fr).toEqual([10, 3, 5, 9, 1, 7]);
    expect(bm).toEqual([-9, -3, -2, -2, -1, -1]);
    sortWindow([], [], fr, bm);
    expect(fr).toHaveLength(6);
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

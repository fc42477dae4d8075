import { describe, expect, it } from "vitest";
import { PROBES, PROBES_GROUP, type ProbeContext } from "./probes.ts";

const ctx = (): ProbeContext => {
  let i = 0;
  return {
    datasetId: "d1",
    word: () => `w${i++}`,
    wordAt: (rank) => `rank${rank}`,
    recordId: (n) => `r${n}`,
    metadataPropertyIds: { source: "m-source", length: "m-length" },
  };
};
const byName = (name: string) => PROBES.find((p) => p.name === name)!;

describe("the probes (--only probes)", () => {
  it("have unique names and are not picked by the filter probes' or the other rows' --only", () => {
    const names = PROBES.map((p) => p.name);
    expect(new Set(names).size).toBe(names.length);
    expect(PROBES_GROUP).toBe("probes");
    for (const name of names) expect(name.includes("filters")).toBe(false);
  });

  it("page as the official SDK does: offset paging by 256 with responses and suggestions, deep offsets up to 990K", () => {
    const offsets = PROBES.filter((p) => p.name.startsWith("sdk: page")).map(
      (p) => new URL(`http://x${p.call(ctx(), 0).path}`).searchParams,
    );
    expect(offsets.map((q) => Number(q.get("offset")))).toEqual([0, 10_000, 100_000, 500_000, 990_000, 100_000]);
    for (const q of offsets) {
      expect(q.get("limit")).toBe("256");
      expect(q.getAll("include")).toEqual(expect.arrayContaining(["responses", "suggestions"]));
    }
    expect(byName("sdk: page of 256 + vectors at offset 100K").call(ctx(), 0).path).toContain("include=vectors");
    const iterating = byName("sdk: iterating, next page of 256 from offset 900K");
    expect([-1, 0, 1].map((i) => new URL(`http://x${iterating.call(ctx(), i).path}`).searchParams.get("offset"))).toEqual([
      "900000",
      "900256",
      "900512",
    ]);
    // A text query iterated: the next page each call, the same word.
    const text = byName("sdk: iterating a word, next page of 256 from offset 2,560");
    const calls = [-1, 0, 1].map((i) => text.call(ctx(), i));
    expect(calls.map((c) => new URL(`http://x${c.path}`).searchParams.get("offset"))).toEqual(["2560", "2816", "3072"]);
    expect(new Set(calls.map((c) => (c.body as { query: { text: { q: string } } }).query.text.q))).toEqual(new Set(["rank300"]));
  });

  it("send a new word per call where text is asked, the sample records in turn, the metadata properties by id", () => {
    const c = ctx();
    const first = byName("most similar + a new word").call(c, 3).body as { query: { vector: { record_id: string }; text: { q: string } } };
    const second = byName("most similar + a new word").call(c, 3).body as { query: { text: { q: string } } };
    expect(first.query.vector.record_id).toBe("r3");
    expect(first.query.text.q).not.toBe(second.query.text.q);
    expect(byName("admin: metadata metrics (integer)").call(c, 0).path).toBe("/metadata-properties/m-length/metrics");
    const withFilters = byName("least similar + pending + metadata").call(c, 0).body as {
      filters: { and: unknown[] };
      query: { text?: unknown };
    };
    expect(withFilters.filters.and).toHaveLength(3);
    expect(withFilters.query.text).toBeUndefined();
    expect(byName("admin: export jsonl of a filtered dataset, first bytes").call(c, 0).firstBytes).toBe(true);
  });
});

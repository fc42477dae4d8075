import { describe, expect, it } from "vitest";
import { FILTER_PROBES, PROBES, probeBody } from "./filter-probes.ts";

describe("the filter probes (--only filters)", () => {
  it("cover the annotation page's filters and sorts, with and without text, under unique names", () => {
    const names = PROBES.map((p) => p.name);
    expect(new Set(names).size).toBe(names.length);
    expect(PROBES.filter((p) => p.text !== undefined).length).toBe(13);
    expect(PROBES.filter((p) => p.text === undefined).length).toBe(9);
    const scopes = PROBES.flatMap((p) => [...p.filters, ...(p.sort ?? [])].map((f) => JSON.stringify(f.scope)));
    for (const entity of ["suggestion", "response", "metadata", "record"]) expect(scopes.some((s) => s.includes(`"${entity}"`))).toBe(true);
    expect(FILTER_PROBES).toBe("filters");
  });

  it("send a new word per call, a phrase of two, one field, or no text", () => {
    let i = 0;
    const word = () => `w${i++}`;
    const byName = (name: string) => PROBES.find((p) => p.name === name)!;
    expect(probeBody(byName("word + suggestion value"), word).query).toEqual({ text: { q: "w0", field: null } });
    expect(probeBody(byName("phrase + metadata + suggestion"), word).query).toEqual({ text: { q: "w1 w2", field: null } });
    expect(probeBody(byName("word in field summary"), word).query).toEqual({ text: { q: "w3", field: "summary" } });
    const noText = probeBody(byName("pending, sort suggestion score desc"), word);
    expect(noText.query).toBeNull();
    expect(noText.sort).toEqual([{ scope: { entity: "suggestion", question: "sentiment", property: "score" }, order: "desc" }]);
    expect(probeBody(byName("word, no filter"), word).filters).toBeNull();
  });
});

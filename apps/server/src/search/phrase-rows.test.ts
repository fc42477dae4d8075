import { describe, expect, it } from "vitest";
import { countPhraseRows, phraseKey, phrasesOf, rankArguments, scoreSql } from "./phrase-rows.js";
import { ftsExpression } from "./sqlite-sql.js";

describe("phrase row counts for tessera_bm25", () => {
  it("splits ftsExpression's output into FTS5's phrases, in order", () => {
    expect(phrasesOf(ftsExpression('rituxe Hape qua* say"hi" café x-ray')!)).toEqual([
      '"rituxe"',
      '"Hape"',
      '"qua"*',
      '"say""hi"""',
      '"café"',
      '"x-ray"',
    ]);
  });

  it("keys a plain ASCII word by its term, anything else as written", () => {
    expect(phraseKey('"Hape"')).toBe('"hape"');
    expect(phraseKey('"qua"*')).toBe('"qua"*');
    expect(phraseKey('"café"')).toBe('"café"');
  });

  it("counts a plain word through its term, anything else through a MATCH count", () => {
    const asked: string[] = [];
    const byTerm = (t: string) => (asked.push(`term ${t}`), t === "hape" ? 12 : undefined);
    const byMatch = (p: string) => (asked.push(`match ${p}`), 7);
    expect([
      countPhraseRows('"Hape"', byTerm, byMatch),
      countPhraseRows('"nope"', byTerm, byMatch),
      countPhraseRows('"qua"*', byTerm, byMatch),
    ]).toEqual([12, 0, 7]);
    expect(asked).toEqual(["term hape", "term nope", 'match "qua"*']);
  });

  it("drops phrases in no row, and gives no counts for a single phrase", () => {
    expect(rankArguments([5, 0, 9])).toEqual([5, 9]);
    expect(rankArguments([5, 0])).toEqual([]);
    expect(rankArguments([5])).toEqual([]);
    expect(scoreSql("tessera_bm25", 2)).toBe("tessera_bm25(records_fts, ?, ?)");
    expect(scoreSql("bm25", 2)).toBe("bm25(records_fts)");
  });
});

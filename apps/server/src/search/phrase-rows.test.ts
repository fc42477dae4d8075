import SQLite from "better-sqlite3";
import { describe, expect, it } from "vitest";
import {
  countPhraseRows,
  listPrefixTerms,
  PHRASE_HELPERS,
  phraseKey,
  phraseScore,
  phrasesOf,
  rankArguments,
  scoreSql,
} from "./phrase-rows.js";
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

describe("the vocabulary reads the request thread and the read threads share", () => {
  /** An index as the store's (`fts.records_fts`): alpha in 3 rows, beta in 2, alpine, alps and alpaca once each. */
  const index = () => {
    const db = new SQLite(":memory:");
    db.exec("ATTACH DATABASE ':memory:' AS fts; CREATE VIRTUAL TABLE fts.records_fts USING fts5(field, text)");
    const insert = db.prepare("INSERT INTO records_fts (field, text) VALUES ('text', ?)");
    for (const text of ["alpha beta", "alpha beta alpine", "alpha alps", "gamma alpaca"]) insert.run(text);
    return db;
  };

  it("scores several phrases with their counts: the known ones taken, the others counted once each", () => {
    const db = index();
    const score = phraseScore(
      (sql) => db.prepare(sql),
      '"Alpha" "beta" "alp"* "alpha"',
      (key) => (key === '"alpha"' ? 30 : undefined),
      PHRASE_HELPERS,
    );
    expect(score.rows).toEqual({ '"alpha"': 30, '"beta"': 2, '"alp"*': 4 });
    expect(score.counted).toBe(2);
    expect(score.args).toEqual([30, 2, 4, 30]);
    expect(score.sql).toBe("tessera_bm25(records_fts, ?, ?, ?, ?)");
  });

  it("gives one phrase no counts, and drops a phrase in no row", () => {
    const db = index();
    const prepare = (sql: string) => db.prepare(sql);
    expect(phraseScore(prepare, '"alpha"', () => undefined, PHRASE_HELPERS)).toEqual({
      sql: "tessera_bm25(records_fts)",
      args: [],
      rows: {},
      counted: 0,
    });
    const none = phraseScore(prepare, '"alpha" "nowhere"', () => undefined, PHRASE_HELPERS);
    expect(none.rows).toEqual({ '"alpha"': 3, '"nowhere"': 0 });
    expect(none.args).toEqual([]);
  });

  it("lists a prefix's terms in order, at most max + 1, none past the prefix", () => {
    const db = index();
    const prepare = (sql: string) => db.prepare(sql);
    expect(listPrefixTerms(prepare, "alp", 10, PHRASE_HELPERS)).toEqual(["alpaca", "alpha", "alpine", "alps"]);
    expect(listPrefixTerms(prepare, "alp", 1, PHRASE_HELPERS)).toEqual(["alpaca", "alpha"]);
    expect(listPrefixTerms(prepare, "alpz", 10, PHRASE_HELPERS)).toEqual([]);
  });

  it("lists the terms known to be in the index without reading them: the same list as reading every term", () => {
    const db = index();
    const prepare = (sql: string) => db.prepare(sql);
    for (const [prefix, max] of [
      ["alp", 10],
      ["alp", 1],
      ["alp", 2],
      ["alpha", 10],
      ["alpi", 10],
    ] as const) {
      const read = listPrefixTerms(prepare, prefix, max, PHRASE_HELPERS);
      for (const known of [["alpha"], ["alpaca", "alps"], ["alpaca", "alpha", "alpine", "alps"], ["alpine"], ["beta"]])
        expect(listPrefixTerms(prepare, prefix, max, PHRASE_HELPERS, known), `${prefix} ${max} ${known.join()}`).toEqual(read);
    }
    // A known term is not read: one the index does not hold is listed all the same (the caller vouches for its terms).
    expect(listPrefixTerms(prepare, "alp", 10, PHRASE_HELPERS, ["alpb"])).toEqual(["alpaca", "alpb", "alpha", "alpine", "alps"]);
  });
});

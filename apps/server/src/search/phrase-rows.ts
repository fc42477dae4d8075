/**
 * The row counts tessera_bm25 takes as arguments (rank-extension.ts, issue 31): FTS5's bm25 gives each
 * phrase of a query the idf log((N - n + 0.5) / (n + 0.5)), n the table's rows containing the phrase;
 * FTS5 counts n over the whole table in every statement, tessera_bm25 takes it from its caller, which
 * counts each phrase once per index version (sqlite-text.ts keeps them, the read threads count
 * the missing ones in the read transaction of their job, the frequent words come with the ranking ahead).
 *
 * Self-contained functions (no closure, no import): the read threads evaluate their source
 * (sqlite-read-pool.ts), the request thread calls them, so both count and score alike.
 */

/** The SQL over the index's vocabulary (fts5vocab, a temp table: writable on a read-only connection too), shared by the request thread and the read threads. */
export const VOCAB_SQL = {
  table: "CREATE VIRTUAL TABLE IF NOT EXISTS temp.records_fts_vocab USING fts5vocab(fts, records_fts, row)",
  /** A term's rows (countPhraseRows' `byTerm`). */
  termRows: "SELECT doc FROM temp.records_fts_vocab WHERE term = ?",
  /** A phrase's rows by matching it (countPhraseRows' `byMatch`). */
  matchRows: "SELECT count(*) FROM records_fts WHERE records_fts MATCH ?",
  /** The terms from the first bound (inclusive) to the second (exclusive: `pastPrefix(prefix)`, or below a known term), at most LIMIT. */
  prefixTerms: "SELECT term FROM temp.records_fts_vocab WHERE term >= ? AND term < ? ORDER BY term LIMIT ?",
} as const;

/**
 * The phrases of an FTS expression as ftsExpression writes it (`"word"`, `"word"*`, quotes doubled inside), in order: FTS5's phrases 0, 1, ...
 * A prefix's terms (prefixTermsExpression) are one phrase, the whole group: tessera_bm25 scores them as the prefix.
 */
export function phrasesOf(expression: string): string[] {
  if (/^\("[^"]*"(?: OR "[^"]*")*\)$/.test(expression)) return [expression];
  return expression.match(/"(?:[^"]|"")*"\*?/g) ?? [];
}

/** The prefix of an expression that is one ASCII prefix of at least `minLength` letters (`"abcde"*`), lower case (as the index's terms), or null. */
export function longPrefixOf(expression: string, minLength: number): string | null {
  const m = /^"([A-Za-z0-9]+)"\*$/.exec(expression);
  return m && m[1]!.length >= minLength ? m[1]!.toLowerCase() : null;
}

/** The first string after every term starting with an ASCII `prefix` (its last character raised by one). */
export const pastPrefix = (prefix: string): string => prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);

/**
 * A prefix's terms as one FTS expression, `("t1" OR "t2" ...)`: FTS5 reads only the rows asked for of each term's list, where
 * a prefix without a prefix index of its length merges every term's list over the whole table in each statement. Null without terms.
 */
export function prefixTermsExpression(terms: string[]): string | null {
  return terms.length === 0 ? null : `(${terms.map((t) => `"${t.replaceAll('"', '""')}"`).join(" OR ")})`;
}

/** A phrase's key among the counts: a plain ASCII word is its term (the unicode61 tokenizer folds ASCII case), else the phrase as written. */
export function phraseKey(phrase: string): string {
  const plain = /^"([A-Za-z0-9]+)"$/.exec(phrase);
  return plain ? `"${plain[1]!.toLowerCase()}"` : phrase;
}

/**
 * The table's rows containing a phrase: fts5vocab's `doc` of the term for a plain word (`byTerm`: half the
 * cost of a MATCH count, which decodes positions), else `count(*) ... MATCH` of the phrase alone (`byMatch`).
 */
export function countPhraseRows(phrase: string, byTerm: (term: string) => number | undefined, byMatch: (phrase: string) => number): number {
  const plain = /^"([A-Za-z0-9]+)"$/.exec(phrase);
  return plain ? (byTerm(plain[1]!.toLowerCase()) ?? 0) : byMatch(phrase);
}

/**
 * tessera_bm25's arguments from the counts of the expression's phrases: the phrases in no row dropped
 * (a word without any token is no phrase for FTS5; a real phrase in no row leaves no row to score),
 * and none when one phrase is left (each phrase's idf is then 1: a single phrase's idf is a constant
 * factor, so the order is bm25's, on another scale). With another number of counts than FTS5's phrases
 * the function counts as bm25() does (same scores, bm25's cost).
 */
export function rankArguments(counts: number[]): number[] {
  const kept = counts.filter((n) => n > 0);
  return kept.length > 1 ? kept : [];
}

/** The SQL of a row's score: FTS5's bm25(), or tessera_bm25 with `args` placeholders (its counts, bound first). */
export function scoreSql(scoring: "tessera_bm25" | "bm25", args: number): string {
  return scoring === "bm25" ? "bm25(records_fts)" : `tessera_bm25(records_fts${", ?".repeat(args)})`;
}

/** A connection's statements (better-sqlite3's prepare; the read threads pass their cache of prepared statements). */
export type Prepare = (sql: string) => {
  run(...params: unknown[]): unknown;
  pluck(): { get(...params: unknown[]): unknown; all(...params: unknown[]): unknown[] };
};

/** The helpers phraseScore and listPrefixTerms use: the read threads pass the same functions evaluated from their source. */
export interface PhraseHelpers {
  phrasesOf: typeof phrasesOf;
  phraseKey: typeof phraseKey;
  countPhraseRows: typeof countPhraseRows;
  rankArguments: typeof rankArguments;
  scoreSql: typeof scoreSql;
  pastPrefix: typeof pastPrefix;
  phraseRows: typeof phraseRows;
  vocab: typeof VOCAB_SQL;
}
export const PHRASE_HELPERS: PhraseHelpers = {
  phrasesOf,
  phraseKey,
  countPhraseRows,
  rankArguments,
  scoreSql,
  pastPrefix,
  phraseRows,
  vocab: VOCAB_SQL,
};

/**
 * A windowed query's score with tessera_bm25 as SQL and its arguments (bound first), the row counts of its phrases
 * from `known` (by phraseKey), the missing ones counted on the connection: all of them in `rows`, `counted` of them
 * counted here. One phrase: no counts (its idf is a constant factor). The request thread and the read threads'
 * jobs both score with it. Self-contained (`h`: PHRASE_HELPERS).
 */
export function phraseScore(
  prepare: Prepare,
  expression: string,
  known: (key: string) => number | undefined,
  h: PhraseHelpers,
): { sql: string; args: number[]; rows: Record<string, number>; counted: number } {
  const phrases = h.phrasesOf(expression);
  if (phrases.length < 2) return { sql: h.scoreSql("tessera_bm25", 0), args: [], rows: {}, counted: 0 };
  const { rows, counted } = h.phraseRows(prepare, phrases, known, h);
  const args = h.rankArguments(phrases.map((p) => rows[h.phraseKey(p)]!));
  return { sql: h.scoreSql("tessera_bm25", args.length), args, rows, counted };
}

/**
 * The row counts of `phrases` (by phraseKey): from `known`, the missing ones counted on the connection (`counted` of
 * them). Self-contained (`h`: PHRASE_HELPERS).
 */
export function phraseRows(
  prepare: Prepare,
  phrases: string[],
  known: (key: string) => number | undefined,
  h: PhraseHelpers,
): { rows: Record<string, number>; counted: number } {
  const rows: Record<string, number> = {};
  let counted = 0;
  for (const phrase of phrases) {
    const key = h.phraseKey(phrase);
    if (rows[key] !== undefined) continue;
    const n = known(key);
    if (n !== undefined) rows[key] = n;
    else {
      if (counted === 0) prepare(h.vocab.table).run();
      rows[key] = h.countPhraseRows(
        phrase,
        (term) => prepare(h.vocab.termRows).pluck().get(term) as number | undefined,
        (p) => prepare(h.vocab.matchRows).pluck().get(p) as number,
      );
      counted++;
    }
  }
  return { rows, counted };
}

/**
 * The index's terms starting with an ASCII `prefix`, in order, at most `max` + 1 of them. fts5vocab reads each listed
 * term's whole list to count its rows, so a prefix of a frequent word cost up to ~40 ms at 1M records for that word alone
 * (session 16); `known`: terms of the prefix known to be in the index at the reading transaction's version (sorted,
 * ASCII: the frequent words, sqlite-text.ts), listed without reading them: the ranges between them are read instead
 * (each bound strictly around the known term, since fts5vocab reads up to and including its `term <` bound).
 * Self-contained (`h`: PHRASE_HELPERS).
 */
export function listPrefixTerms(prepare: Prepare, prefix: string, max: number, h: PhraseHelpers, known: string[] = []): string[] {
  prepare(h.vocab.table).run();
  const between = prepare(h.vocab.prefixTerms).pluck();
  const end = h.pastPrefix(prefix);
  const out: string[] = [];
  let from = prefix;
  for (const term of known) {
    if (term < from || term >= end || out.length > max) continue;
    // Below `term`: every term before it (it is ASCII: its last character lowered, then the highest characters) and none of it.
    const below = term.slice(0, -1) + String.fromCharCode(term.charCodeAt(term.length - 1) - 1) + "\u{10FFFF}".repeat(8);
    out.push(...(between.all(from, below, max + 1 - out.length) as string[]), term);
    from = `${term}\u0001`; // the first string past `term` (no term holds a control character)
  }
  if (out.length <= max) out.push(...(between.all(from, end, max + 1 - out.length) as string[]));
  return out.slice(0, max + 1);
}

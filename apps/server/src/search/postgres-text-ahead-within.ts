import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { recordCounts } from "../records/counts.js";
import type { Builder } from "./postgres-sql.js";
import type { RankedAhead } from "./postgres-rank-ahead.js";
import { type AheadPage, listedThenSingles, type Passing } from "./postgres-text-ahead-listed.js";
import { singlesBySeq } from "./postgres-text-singles-seq.js";
import type { SearchQuery } from "./search-port.js";

/**
 * A page of a plain word ranked ahead among the caller's answered records (`within`, ascending seqs: postgres-answered-seqs.ts;
 * pageAhead, postgres-text-ahead.ts, for the answered search of postgres-text.ts), tested here, not by a filter of `query`: the
 * listed records among them (listedPassing), then the single occurrences among the others by seq (singlesBySeq). Null when the
 * list cannot give the page (the caller ranks every match).
 *
 * The others are taken in seq order, a part at a time: as many as should hold the records still needed (the word's share of
 * the dataset's records, 3 times over), 4 times more each time (a constant array of 34K seqs costs ~7-15 ms to plan); each part
 * by primary key in order, the word tested on each.
 */
export async function pageWithin(
  db: Kysely<DB>,
  query: SearchQuery,
  word: string,
  ahead: RankedAhead,
  within: Float64Array,
  /** The dataset's records when the caller read them. */
  records: number | undefined,
): Promise<AheadPage> {
  return listedThenSingles(db, query, word, ahead, within, async (n, skip) => {
    const listed = new Set(ahead.seqs);
    const rest = Array.from(within).filter((seq) => !listed.has(seq));
    const share = ahead.records / Math.max(records ?? (await recordCounts(db, query.datasetId)).total, 1);
    const found: Passing[] = [];
    let size = Math.ceil((n / Math.max(share, 1e-3)) * 3) + 64;
    for (let from = 0; found.length < n && from < rest.length; from += size, size *= 4) {
      const part = rest.slice(from, from + size);
      const among = (b: Builder) => `r.seq = ANY(${b.p(`{${part.join(",")}}`)}::bigint[])`;
      found.push(...(await singlesBySeq(db, query, word, among, n - found.length, skip - found.length, false)));
    }
    return found.slice(Math.max(0, skip));
  });
}

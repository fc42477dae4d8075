import { type Kysely, sql } from "kysely";
import type { BackgroundIndexSpec } from "../../../search/postgres-background-index.js";

/**
 * Indexes in the order of the annotation page's sorts, so that a sorted page reads the records in that order
 * and stops once the filters have passed a page (search/postgres-sorted.ts) instead of sorting every record:
 * - `records (dataset_id, updated_at)`: sort by updated time (either direction; ties by seq in an incremental sort).
 *   At 1M bench records the pending queue sorted by updated_at desc took 927 ms p50 with a new word (the integrator's probe).
 * - `suggestions (question_id, tessera_json_top(score))`: sort by a suggestion's score, the largest item of a list
 *   (as the search's sort key, search/postgres-sql.ts sortExpr).
 *
 * `tessera_json_top`: the largest non-null item of a JSON array, or the value itself (JSON null: SQL NULL).
 *
 * Here only on empty tables (a new database: no time). Tables with rows get the indexes from the server in the
 * background (search/postgres-background-index.ts, as 0031's: `CREATE INDEX CONCURRENTLY`, writes go on); until
 * they are valid the sorted pages are read as before (the same answers, slower).
 */
export const SORT_INDEX_SPECS: BackgroundIndexSpec[] = [
  {
    index: "records_dataset_updated_idx",
    table: "records",
    definition: "(dataset_id, updated_at)",
    replaces: [],
    what: "the index of records by updated time",
  },
  {
    index: "suggestions_question_score_top_idx",
    table: "suggestions",
    definition: "(question_id, tessera_json_top(score))",
    replaces: [],
    what: "the index of suggestions by score",
  },
];

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create or replace function tessera_json_top(v jsonb) returns jsonb language sql immutable parallel safe as $$
      select nullif(e.value, 'null'::jsonb) from jsonb_array_elements(case jsonb_typeof(v) when 'array' then v else jsonb_build_array(v) end) as e(value)
      order by 1 desc nulls last limit 1
    $$`.execute(db);
  for (const spec of SORT_INDEX_SPECS) {
    const { rows } = await sql<{ any: number }>`select 1 as any from ${sql.table(spec.table)} limit 1`.execute(db);
    if (rows.length === 0) await sql.raw(`create index ${spec.index} on ${spec.table} ${spec.definition}`).execute(db);
  }
}

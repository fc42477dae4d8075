import { sql, type Kysely } from "kysely";
import type { DB } from "../../db/schema.js";
import { isPostgres } from "../../db/dialect.js";
import type { DatasetSchema } from "../dataset-schema.js";
import { withIncludes, type Include, type RecordOut, type RecordRow, type ResponseRow, type SuggestionRow } from "../read.js";
import type { RecordViewer } from "../visibility.js";
import { recordRowsByIds } from "./record-rows-by-ids.js";

type RowWithParts = RecordRow & { responses_json: string | null; suggestions_json: string | null };

/**
 * The records of these ids (any order; unknown ids left out) serialized with `include` as `viewer` may
 * see them (withIncludes). On PostgreSQL the rows, their responses and their suggestions come in one
 * statement (each record's parts as a JSON array of their rows): three statements and 100 suggestion rows
 * through node-postgres cost Node ~3 ms of CPU per similarity page of 50 records at 1M; on SQLite
 * statements are in-process and cheap, so it reads them as withIncludes does.
 */
export async function recordsWithIncludes(
  db: Kysely<DB>,
  schema: DatasetSchema,
  ids: string[],
  include: Include,
  viewer: RecordViewer,
): Promise<RecordOut[]> {
  if (ids.length === 0) return [];
  if (!isPostgres(db) || (!include.responses && !include.suggestions))
    return withIncludes(db, schema, await recordRowsByIds(db, ids), include, viewer);
  // JSON columns as text inside the arrays: the rows keep the shapes responseOut and suggestionOut read.
  const ownOnly = viewer.responses === "own" ? sql` AND s.user_id = ${viewer.userId}` : sql``;
  const responses = include.responses
    ? sql`(SELECT coalesce(json_agg(p ORDER BY p.inserted_at), '[]') FROM (SELECT s.id, s.record_id, s.user_id, s.status,
        s."values"::text AS "values", s.inserted_at, s.updated_at FROM responses s WHERE s.record_id = r.id${ownOnly}) p)`
    : sql`NULL`;
  const suggestions = include.suggestions
    ? sql`(SELECT coalesce(json_agg(p ORDER BY p.inserted_at), '[]') FROM (SELECT s.id, s.record_id, s.question_id, s.value::text AS value,
        s.score::text AS score, s.agent, s.type, s.inserted_at, s.updated_at FROM suggestions s WHERE s.record_id = r.id) p)`
    : sql`NULL`;
  const { rows } = await sql<RowWithParts>`SELECT r.*, ${responses} AS responses_json, ${suggestions} AS suggestions_json
    FROM records r WHERE r.id = ANY(${ids}::text[])`.execute(db);
  const parts = <T>(column: "responses_json" | "suggestions_json") =>
    new Map(rows.map((row) => [row.id, JSON.parse(row[column] ?? "[]") as T[]]));
  return withIncludes(db, schema, rows, include, viewer, {
    responses: include.responses ? parts<ResponseRow>("responses_json") : undefined,
    suggestions: include.suggestions ? parts<SuggestionRow>("suggestions_json") : undefined,
  });
}

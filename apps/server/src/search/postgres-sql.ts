import { firstWithStatusSql } from "./postgres-first-with-status.js";
import { CompiledQuery, type Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import type { SearchFilter, SearchQuery, SearchScope } from "./search-port.js";
import { searchWords } from "./text-query.js";

/**
 * The SQL pieces of the PostgreSQL search adapter (postgres-search.ts, postgres-text.ts): parameters,
 * filters and sorts over `records r`, text queries as tsqueries.
 */
export type Param = string | number | null;

/** The rows of raw SQL with positional parameters. */
export async function queryRows<T>(db: Kysely<DB>, sqlText: string, params: Param[]): Promise<T[]> {
  return (await db.executeQuery<T>(CompiledQuery.raw(sqlText, params))).rows;
}

/**
 * A dataset's text version: the largest id of its rows in `text_search_changes` (migration 0017),
 * which triggers append to when its records' text changes; 0 when none.
 */
export async function textVersion(db: Kysely<DB>, datasetId: string): Promise<number> {
  const rows = await queryRows<{ v: number | string }>(
    db,
    "SELECT coalesce(max(id), 0) AS v FROM text_search_changes WHERE dataset_id = $1",
    [datasetId],
  );
  return Number(rows[0]?.v ?? 0);
}

/**
 * The columns `version` (textVersion) and `records` (the dataset's records: the same at one text version, which
 * every insert and delete moves) of the dataset whose id is the parameter `dataset` (e.g. `$1`).
 */
export const versionRecordsSql = (dataset: string): string =>
  `(SELECT coalesce(max(id), 0) FROM text_search_changes WHERE dataset_id = ${dataset}) AS version,
    (SELECT coalesce(sum(n), 0) FROM dataset_record_counts WHERE dataset_id = ${dataset}) AS records`;

/** A dataset's text version (textVersion) and its records, in one statement. */
export async function textVersionRecords(db: Kysely<DB>, datasetId: string): Promise<{ version: number; records: number }> {
  const row = (
    await queryRows<{ version: number | string; records: number | string }>(db, `SELECT ${versionRecordsSql("$1")}`, [datasetId])
  )[0];
  return { version: Number(row?.version ?? 0), records: Number(row?.records ?? 0) };
}

/**
 * The datasets of at least `minRecords` records (their counters), each with its text version (textVersion) and the version
 * `table` holds for it (null: none): what a background job that keeps something of each dataset per text version looks at
 * (postgres-rank-ahead.ts's runs, postgres-text-vocabulary.ts's vocabularies).
 */
export async function datasetTextVersions(
  db: Kysely<DB>,
  table: "text_ranked_ahead_runs" | "text_vocabulary",
  minRecords: number,
): Promise<{ id: string; version: number | string; stored: number | string | null }[]> {
  return queryRows<{ id: string; version: number | string; stored: number | string | null }>(
    db,
    `SELECT d.id, (SELECT coalesce(max(t.id), 0) FROM text_search_changes t WHERE t.dataset_id = d.id) AS version, s.version AS stored
     FROM datasets d LEFT JOIN ${table} s ON s.dataset_id = d.id
     WHERE (SELECT coalesce(sum(c.n), 0) FROM dataset_record_counts c WHERE c.dataset_id = d.id) >= $1`,
    [minRecords],
  );
}

/** The record statuses (`records.status`). */
export const RECORD_STATUSES = ["pending", "completed"];

/**
 * The annotation queue's filters: response status `pending` and record status terms, nothing else.
 * `pending`: the response filter is there; `statuses`: the record statuses every status filter keeps.
 * Null for any other filter.
 */
export function queueFilters(filters: SearchFilter[]): { pending: boolean; statuses: string[] } | null {
  const isPending = (f: SearchFilter) =>
    f.type === "terms" && f.scope.entity === "response_status" && f.values.length === 1 && f.values[0] === "pending";
  if (!filters.every((f) => isPending(f) || isStatus(f))) return null;
  return { pending: filters.some(isPending), statuses: keptStatuses(filters) };
}

const isStatus = (f: SearchFilter) => f.type === "terms" && f.scope.entity === "record" && f.scope.property === "status";

/** The record statuses every record status filter among `filters` keeps (all of them without one), whatever the other filters. */
export function keptStatuses(filters: SearchFilter[]): string[] {
  const statusFilters = filters.filter(isStatus);
  return RECORD_STATUSES.filter((s) => statusFilters.every((f) => f.type === "terms" && f.values.map(String).includes(s)));
}

/**
 * The first seq a record of the dataset (the parameter `dataset`, e.g. `$1`) passing `filters` can have, as a scalar
 * subquery: the first record of the one status the filters keep (records_dataset_status_seq_idx), else the dataset's
 * first record. A team working through its queue completes the dataset's first records: at 1M bench records a head of
 * 15,695 completed records that a walk in seq order for pending ones read first (the metadata filter's bounded count
 * walked 20,000 rows, 40 ms, found 409 of 1,001 and counted again through the GIN index, 72 ms; from the first pending
 * record 19 ms, decided).
 */
export function firstPassingSeqSql(b: Builder, filters: SearchFilter[], dataset: string): string {
  const kept = keptStatuses(filters);
  if (kept.length === 1 && kept.length < RECORD_STATUSES.length) return firstWithStatusSql(dataset, `${b.p(kept[0]!)}::text`);
  return `(SELECT min(x.seq) FROM records x WHERE x.dataset_id = ${dataset})`;
}

/** JSON value or each item of a JSON array, as rows `e(value)`. */
const items = (expr: string) =>
  `jsonb_array_elements(CASE jsonb_typeof(${expr}) WHEN 'array' THEN ${expr} ELSE jsonb_build_array(${expr}) END) AS e(value)`;

/** Datetime bounds may be given with a timezone; stored timestamps are naive UTC ISO strings. */
function timeBound(value: number | string): string {
  if (typeof value === "number") return new Date(value * 1000).toISOString().replace("Z", "");
  const parsed = /[zZ]|[+-]\d\d:?\d\d$/.test(value) ? new Date(value) : null;
  return parsed && !Number.isNaN(parsed.getTime()) ? parsed.toISOString().replace("Z", "") : value;
}

/** A word as one quoted tsquery operand (quote_literal would give E'...' for a backslash, which to_tsquery refuses). */
export const tsLexeme = (word: string): string => `'${word.replace(/\\/g, "\\\\").replace(/'/g, "''")}'`;

/**
 * A select list entry that keeps its statement's plan serial: `set_config` is parallel unsafe, so PostgreSQL plans no
 * parallel workers for a statement that calls it (the setting itself lasts to the end of the statement's transaction).
 * For statements that stop at a LIMIT in the order their scan gives rows: a parallel scan gives them in the order its
 * workers find them, and launching the workers costs more than it saves on 2 cores with many callers.
 */
export const SERIAL_PLAN = "set_config('max_parallel_workers_per_gather', '0', true)";

/** Splits free text into words; a trailing `*` makes a prefix word. */
export function textWords(q: string): { word: string; prefix: boolean }[] {
  return searchWords(q)
    .filter((w) => w !== "*")
    .map((w) => {
      const prefix = w.endsWith("*") && w.length > 1;
      return { word: prefix ? w.slice(0, -1) : w, prefix };
    });
}

export const json = (v: unknown): string => JSON.stringify(v === undefined ? null : v);

/** SQL text and its positional parameters ($1, $2, ...) for the PostgreSQL search queries. */
export class Builder {
  params: Param[] = [];
  /** `searchRows`: `r` is `record_search` (migration 0025), whose metadata terms have a GIN index. */
  constructor(
    readonly userId: string | null,
    readonly searchRows = false,
  ) {}
  p(value: Param, cast = ""): string {
    this.params.push(value);
    return `$${this.params.length}${cast}`;
  }
  jsonList(values: unknown[]): string {
    return values.map((v) => this.p(json(v), "::jsonb")).join(", ");
  }

  responseUserClause(alias: string): string {
    return this.userId ? ` AND ${alias}.user_id = ${this.p(this.userId)}` : "";
  }

  filter(f: SearchFilter): string {
    return f.type === "terms" ? this.terms(f.scope, f.values) : this.range(f.scope, f.ge, f.le);
  }

  responseValue(questionName: string): string {
    return `(s."values" -> ${this.p(questionName, "::text")} -> 'value')`;
  }

  terms(s: SearchScope, values: unknown[]): string {
    if (values.length === 0) return "false";
    switch (s.entity) {
      case "record":
        return `r.${s.property} IN (${values.map((v) => this.p(v === null || v === undefined ? null : String(v))).join(", ")})`;
      case "metadata": {
        const options = values.flatMap((v) => [this.p(json({ [s.name]: v }), "::jsonb"), this.p(json({ [s.name]: [v] }), "::jsonb")]);
        const contained = `(${options.map((o) => `r.metadata @> ${o}`).join(" OR ")})`;
        if (!this.searchRows || !values.every((v) => v === null || ["string", "number", "boolean"].includes(typeof v))) return contained;
        // The records whose terms hold a value, exact in the GIN index (ANDed there with the words'); `@>` on those rows.
        return `(r.terms && tessera_metadata_terms(jsonb_build_object(${this.p(s.name)}::text, ${this.p(json(values))}::jsonb)) AND ${contained})`;
      }
      case "response_status": {
        const statuses = values.filter((v) => v !== "pending");
        const parts: string[] = [];
        if (values.includes("pending"))
          parts.push(`NOT EXISTS (SELECT 1 FROM responses s WHERE s.record_id = r.id${this.responseUserClause("s")})`);
        if (statuses.length > 0) {
          const inStatuses = `s.status IN (${statuses.map((v) => this.p(String(v))).join(", ")})`;
          // record_search has no index on id: a caller's few responses joined by id made PostgreSQL scan its 1M rows
          // (the Submitted list's total 290-650 ms at 1M); through records' id to record_search's seq: 5 ms.
          parts.push(
            this.searchRows && this.userId
              ? `EXISTS (SELECT 1 FROM responses s JOIN records rr ON rr.id = s.record_id WHERE rr.seq = r.seq${this.responseUserClause("s")} AND ${inStatuses})`
              : `EXISTS (SELECT 1 FROM responses s WHERE s.record_id = r.id${this.responseUserClause("s")} AND ${inStatuses})`,
          );
        }
        return parts.length ? `(${parts.join(" OR ")})` : "false";
      }
      case "response_value":
        return `EXISTS (SELECT 1 FROM responses s CROSS JOIN LATERAL ${items(this.responseValue(s.questionName))} WHERE s.record_id = r.id${this.responseUserClause("s")} AND e.value IN (${this.jsonList(values)}))`;
      case "suggestion":
        if (s.property === "agent" || s.property === "type") {
          return `EXISTS (SELECT 1 FROM suggestions g WHERE g.record_id = r.id AND g.question_id = ${this.p(s.questionId)} AND g.${s.property} IN (${values.map((v) => this.p(String(v))).join(", ")}))`;
        }
        return `EXISTS (SELECT 1 FROM suggestions g CROSS JOIN LATERAL ${items(`g.${s.property === "score" ? "score" : "value"}`)} WHERE g.record_id = r.id AND g.question_id = ${this.p(s.questionId)} AND e.value IN (${this.jsonList(values)}))`;
    }
  }

  /** Bounds on a JSON value: only values of the bound's JSON type compare (numbers with numbers, strings with strings). */
  jsonBounds(expr: string, ge: number | string | null, le: number | string | null): string {
    const parts: string[] = [];
    for (const [op, bound] of [
      [">=", ge],
      ["<=", le],
    ] as const) {
      if (bound === null) continue;
      parts.push(
        `(jsonb_typeof(${expr}) = ${typeof bound === "number" ? "'number'" : "'string'"} AND ${expr} ${op} ${this.p(json(bound), "::jsonb")})`,
      );
    }
    return parts.join(" AND ") || "true";
  }

  textBounds(expr: string, ge: Param, le: Param): string {
    const parts: string[] = [];
    if (ge !== null) parts.push(`${expr} >= ${this.p(String(ge))}`);
    if (le !== null) parts.push(`${expr} <= ${this.p(String(le))}`);
    return parts.join(" AND ") || "true";
  }

  range(s: SearchScope, ge: number | string | null, le: number | string | null): string {
    switch (s.entity) {
      case "record":
        if (s.property === "inserted_at" || s.property === "updated_at") {
          return this.textBounds(`r.${s.property}`, ge === null ? null : timeBound(ge), le === null ? null : timeBound(le));
        }
        return this.textBounds(`r.${s.property}`, ge, le);
      case "metadata": {
        // A single value is compared as it is (each row of jsonb_array_elements costs ~1 µs of a common word's count).
        const value = `(r.metadata -> ${this.p(s.name, "::text")})`;
        return `coalesce(CASE jsonb_typeof(${value}) WHEN 'array' THEN EXISTS (SELECT 1 FROM jsonb_array_elements(${value}) AS e(value) WHERE ${this.jsonBounds("e.value", ge, le)}) ELSE ${this.jsonBounds(value, ge, le)} END, false)`;
      }
      case "response_status":
        return "true";
      case "response_value":
        return `EXISTS (SELECT 1 FROM responses s CROSS JOIN LATERAL ${items(this.responseValue(s.questionName))} WHERE s.record_id = r.id${this.responseUserClause("s")} AND ${this.jsonBounds("e.value", ge, le)})`;
      case "suggestion": {
        if (s.property === "agent" || s.property === "type") {
          return `EXISTS (SELECT 1 FROM suggestions g WHERE g.record_id = r.id AND g.question_id = ${this.p(s.questionId)} AND ${this.textBounds(`g.${s.property}`, ge, le)})`;
        }
        const column = s.property === "score" ? "score" : "value";
        return `EXISTS (SELECT 1 FROM suggestions g CROSS JOIN LATERAL ${items(`g.${column}`)} WHERE g.record_id = r.id AND g.question_id = ${this.p(s.questionId)} AND ${this.jsonBounds("e.value", ge, le)})`;
      }
    }
  }

  /** A sort key; JSON null counts as missing (sorted last), like SQLite's json_extract. */
  sortExpr(s: SearchScope): string {
    switch (s.entity) {
      case "record":
        return s.property === "inserted_at" ? "r.seq" : `r.${s.property}`;
      case "metadata":
        return `nullif(r.metadata -> ${this.p(s.name, "::text")}, 'null'::jsonb)`;
      case "response_status":
        return `(SELECT min(s.status) FROM responses s WHERE s.record_id = r.id${this.responseUserClause("s")})`;
      case "response_value":
        return `(SELECT nullif(${this.responseValue(s.questionName)}, 'null'::jsonb) AS v FROM responses s WHERE s.record_id = r.id${this.responseUserClause("s")} ORDER BY v ASC NULLS LAST LIMIT 1)`;
      case "suggestion": {
        if (s.property === "agent" || s.property === "type")
          return `(SELECT g.${s.property} FROM suggestions g WHERE g.record_id = r.id AND g.question_id = ${this.p(s.questionId)})`;
        const column = s.property === "score" ? "score" : "value";
        return `(SELECT nullif(e.value, 'null'::jsonb) AS v FROM suggestions g CROSS JOIN LATERAL ${items(`g.${column}`)} WHERE g.record_id = r.id AND g.question_id = ${this.p(s.questionId)} ORDER BY v DESC NULLS LAST LIMIT 1)`;
      }
    }
  }

  /** A tsquery requiring every word (prefix words with `:*`), built from parameters only. */
  tsQuery(words: { word: string; prefix: boolean }[]): string {
    return words
      .map(({ word, prefix }) =>
        prefix
          ? `to_tsquery('tessera_search', ${this.p(tsLexeme(word.toLowerCase()))} || ':*')`
          : `plainto_tsquery('tessera_search', ${this.p(word)})`,
      )
      .join(" && ");
  }
}

/** Record properties `record_search` (migration 0025) has besides its dataset, words and metadata. */
const SEARCH_ROW_PROPERTIES: ReadonlySet<string> = new Set(["id", "status"]);

/** Whether a query's filters read only what `record_search` holds (else its total counts over `records`). */
export function onSearchRows(filters: SearchFilter[]): boolean {
  return filters.every((f) => f.scope.entity !== "record" || SEARCH_ROW_PROPERTIES.has(f.scope.property));
}

/**
 * The records of a dataset whose words match a text query, as `FROM` and `WHERE` parts over
 * `record_search` (migration 0025: one narrow row per record, all its words in the only GIN index of
 * text search): `r` is `record_search` itself when `rows` (the filters read nothing else, see
 * onSearchRows), else `records` joined to it (`x`). A record's words match where one of its fields'
 * do for a query of one lexeme (`numnode` 1) and no field; otherwise (several words must share a
 * field, or one field is asked) the record's fields are checked too, on the records the GIN gave.
 */
export function textMatchSql(b: Builder, query: SearchQuery, rows: boolean): { from: string; where: string[]; x: string } {
  const words = textWords(query.text!.q);
  const x = rows ? "r" : "x";
  const tsq = b.tsQuery(words);
  const field = query.text!.field !== null ? ` AND f.field = ${b.p(query.text!.field)}` : "";
  const inFields = `EXISTS (SELECT 1 FROM records_fts f WHERE f.record_seq = ${x}.seq AND f.tsv @@ (${tsq})${field})`;
  return {
    from: rows ? "record_search r" : "record_search x JOIN records r ON r.seq = x.seq",
    where: [`${x}.dataset_id = ${b.p(query.datasetId)}`, `${x}.tsv @@ (${tsq})`, field ? inFields : `(numnode(${tsq}) = 1 OR ${inFields})`],
    x,
  };
}

/**
 * The number of records a text search matches (with its filters), without ranking them: the page's
 * query ranks every match with ts_rank (which reads each match's tsvector), the total needs only the
 * match itself. Over `record_search` (textMatchSql): PostgreSQL ANDs the word's GIN entry with a
 * metadata terms filter's and reads only the narrow rows both give. `reference`: the plain join of
 * `records` and `records_fts`, without either index (tests compare the two).
 */
export function textCount(
  query: SearchQuery,
  limit: number | null = null,
  reference = false,
  /** false: metadata terms by containment on the rows the word's GIN entry gives, without the terms' GIN entry (filteredTotal). */
  termsIndex = true,
): { sql: string; params: Param[] } {
  const rows = !reference && onSearchRows(query.filters);
  const c = new Builder(query.userId, rows && termsIndex);
  let from = "records r";
  const where: string[] = [];
  if (reference) {
    const field = query.text!.field !== null ? ` AND f.field = ${c.p(query.text!.field)}` : "";
    where.push(
      `r.dataset_id = ${c.p(query.datasetId)}`,
      `EXISTS (SELECT 1 FROM records_fts f WHERE f.record_seq = r.seq AND f.tsv @@ (${c.tsQuery(textWords(query.text!.q))})${field})`,
    );
  } else {
    const match = textMatchSql(c, query, rows);
    from = match.from;
    where.push(...match.where);
  }
  for (const f of query.filters) where.push(c.filter(f));
  // A count limit: the first `limit + 1` passing records, then no further (search-port.ts countLimit).
  if (limit !== null)
    return {
      sql: `SELECT count(*) AS n FROM (SELECT 1 FROM ${from} WHERE ${where.join(" AND ")} LIMIT ${c.p(limit + 1)}) AS first`,
      params: c.params,
    };
  return { sql: `SELECT count(*) AS n FROM ${from} WHERE ${where.join(" AND ")}`, params: c.params };
}

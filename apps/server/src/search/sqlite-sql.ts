import { CompiledQuery, type Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import type { SearchFilter, SearchScope, SearchSort } from "./search-port.js";
import { searchWords } from "./text-query.js";

/** SQL building blocks shared by the SQLite search adapter's parts (sqlite-search, sqlite-knn, sqlite-text). */
export type Param = string | number | Buffer | null;

const jsonPath = (key: string) => `$."${key.replace(/"/g, '""')}"`;

/**
 * An FTS5 rowid range with its bounds as integers. better-sqlite3 binds a JavaScript number as REAL, and
 * FTS5 takes a rowid bound only if it is an INTEGER (fts5GetRowidLimit): else it reads the term's whole
 * doclist from its first row and SQLite drops the rows outside (at 1M records, ~40 ms per query for a
 * word in most records, whatever the range; a DELETE of one record's rows scanned the whole table).
 */
export const FTS_ROWID_RANGE = "rowid BETWEEN CAST(? AS INTEGER) AND CAST(? AS INTEGER)";

/** Turns free text into a safe FTS5 expression: every word quoted, all words required, `word*` kept as a prefix. */
export function ftsExpression(q: string): string | null {
  const words = searchWords(q);
  if (words.length === 0) return null;
  return words
    .map((w) => {
      const prefix = w.endsWith("*") && w.length > 1;
      const core = (prefix ? w.slice(0, -1) : w).replace(/"/g, '""');
      return `"${core}"${prefix ? "*" : ""}`;
    })
    .join(" ");
}

/**
 * A search filter as SQL over the record `r` (its parameters pushed to `params`, in order): what every
 * SQLite search filters with (Builder.filter), and what the read threads' named statements filter
 * least similar's candidates with (read-statements.ts). Self-contained (no closure, no import): the
 * read threads evaluate its source (sqlite-read-pool.ts).
 */
export function filterSql(f: SearchFilter, userId: string | null, params: Param[]): string {
  const p = (value: Param): string => {
    params.push(value);
    return "?";
  };
  const jsonPathOf = (key: string) => `$."${key.replace(/"/g, '""')}"`;
  const list = (values: unknown[]) =>
    values
      .map((v) =>
        p(typeof v === "string" || typeof v === "number" ? v : typeof v === "boolean" ? (v ? 1 : 0) : v == null ? null : JSON.stringify(v)),
      )
      .join(", ");
  const userClause = (alias: string) => (userId ? ` AND ${alias}.user_id = ${p(userId)}` : "");
  const bounds = (expr: string, ge: Param, le: Param): string => {
    const parts: string[] = [];
    if (ge !== null) parts.push(`${expr} >= ${p(ge)}`);
    if (le !== null) parts.push(`${expr} <= ${p(le)}`);
    return parts.join(" AND ") || "1";
  };
  /** Datetime bounds may be given with a timezone; stored timestamps are naive UTC ISO strings. */
  const timeBound = (value: number | string | null): string | null => {
    if (value === null) return null;
    if (typeof value === "number") return new Date(value * 1000).toISOString().replace("Z", "");
    const parsed = /[zZ]|[+-]\d\d:?\d\d$/.test(value) ? new Date(value) : null;
    return parsed && !Number.isNaN(parsed.getTime()) ? parsed.toISOString().replace("Z", "") : value;
  };
  const s = f.scope;
  if (f.type === "terms") {
    const values = f.values;
    switch (s.entity) {
      case "record":
        // Record ids through their unique index: as `r.id IN (...)` the planner walked the dataset in seq order and
        // tested each record (an export's page of 2,000 ids at 1M records: seconds a page, the export quadratic).
        if (s.property === "id") return `r.seq IN (SELECT seq FROM records WHERE id IN (${list(values)}))`;
        return `r.${s.property} IN (${list(values)})`;
      case "metadata":
        return `EXISTS (SELECT 1 FROM record_metadata m WHERE m.seq = r.seq AND m.name = ${p(s.name)} AND m.value IN (${list(values)}))`;
      case "response_status": {
        const statuses = values.filter((v) => v !== "pending");
        const parts: string[] = [];
        if (values.includes("pending")) parts.push(`NOT EXISTS (SELECT 1 FROM responses s WHERE s.record_id = r.id${userClause("s")})`);
        if (statuses.length > 0)
          parts.push(`EXISTS (SELECT 1 FROM responses s WHERE s.record_id = r.id${userClause("s")} AND s.status IN (${list(statuses)}))`);
        return parts.length ? `(${parts.join(" OR ")})` : "0";
      }
      case "response_value":
        return `EXISTS (SELECT 1 FROM responses s, json_each(s."values", ${p(`${jsonPathOf(s.questionName)}.value`)}) AS j WHERE s.record_id = r.id${userClause("s")} AND j.value IN (${list(values)}))`;
      case "suggestion":
        if (s.property === "agent" || s.property === "type")
          return `EXISTS (SELECT 1 FROM suggestions g WHERE g.record_id = r.id AND g.question_id = ${p(s.questionId)} AND g.${s.property} IN (${list(values)}))`;
        return `EXISTS (SELECT 1 FROM suggestions g, json_each(g.${s.property === "score" ? "score" : "value"}) AS j WHERE g.record_id = r.id AND g.question_id = ${p(s.questionId)} AND j.value IN (${list(values)}))`;
    }
  }
  const { ge, le } = f;
  switch (s.entity) {
    case "record":
      if (s.property === "inserted_at" || s.property === "updated_at") return bounds(`r.${s.property}`, timeBound(ge), timeBound(le));
      return bounds(`r.${s.property}`, ge, le);
    case "metadata":
      return `EXISTS (SELECT 1 FROM record_metadata m WHERE m.seq = r.seq AND m.name = ${p(s.name)} AND ${bounds("m.value", ge, le)})`;
    case "response_status":
      return "1";
    case "response_value":
      return `EXISTS (SELECT 1 FROM responses s, json_each(s."values", ${p(`${jsonPathOf(s.questionName)}.value`)}) AS j WHERE s.record_id = r.id${userClause("s")} AND ${bounds("j.value", ge, le)})`;
    case "suggestion": {
      if (s.property === "agent" || s.property === "type")
        return `EXISTS (SELECT 1 FROM suggestions g WHERE g.record_id = r.id AND g.question_id = ${p(s.questionId)} AND ${bounds(`g.${s.property}`, ge, le)})`;
      const column = s.property === "score" ? "score" : "value";
      return `EXISTS (SELECT 1 FROM suggestions g, json_each(g.${column}) AS j WHERE g.record_id = r.id AND g.question_id = ${p(s.questionId)} AND ${bounds("j.value", ge, le)})`;
    }
  }
}

export class Builder {
  params: Param[] = [];
  constructor(readonly userId: string | null) {}
  p(value: Param): string {
    this.params.push(value);
    return "?";
  }

  responseUserClause(alias: string): string {
    return this.userId ? ` AND ${alias}.user_id = ${this.p(this.userId)}` : "";
  }

  /** `FROM` tail: the dataset's records that have a response (of the user, or of anyone), as `r`, ending in a WHERE. */
  answeredRecords(datasetId: string): string {
    // CROSS JOIN: from the responses (user_id, record_id / record_id, user_id indexes) to their records, never the other way.
    const from =
      this.userId !== null
        ? `responses mine CROSS JOIN records r ON r.id = mine.record_id WHERE mine.user_id = ${this.p(this.userId)}`
        : "(SELECT DISTINCT record_id FROM responses) AS mine CROSS JOIN records r ON r.id = mine.record_id WHERE 1";
    return `${from} AND r.dataset_id = ${this.p(datasetId)}`;
  }

  filter(f: SearchFilter): string {
    return filterSql(f, this.userId, this.params);
  }

  sortExpr(s: SearchScope): string {
    switch (s.entity) {
      case "record":
        return s.property === "inserted_at" ? "r.seq" : `r.${s.property}`;
      case "metadata":
        return `json_extract(r.metadata, ${this.p(jsonPath(s.name))})`;
      case "response_status":
        return `(SELECT min(s.status) FROM responses s WHERE s.record_id = r.id${this.responseUserClause("s")})`;
      case "response_value":
        return `(SELECT min(json_extract(s."values", ${this.p(`${jsonPath(s.questionName)}.value`)})) FROM responses s WHERE s.record_id = r.id${this.responseUserClause("s")})`;
      case "suggestion": {
        if (s.property === "agent" || s.property === "type")
          return `(SELECT g.${s.property} FROM suggestions g WHERE g.record_id = r.id AND g.question_id = ${this.p(s.questionId)})`;
        const column = s.property === "score" ? "score" : "value";
        return `(SELECT max(j.value) FROM suggestions g, json_each(g.${column}) AS j WHERE g.record_id = r.id AND g.question_id = ${this.p(s.questionId)})`;
      }
    }
  }
}

/**
 * The ORDER BY terms of a sort, missing values last in both directions (each use of an expression binds
 * its own parameters). A record column that is never NULL gets no `(x) IS NULL` term: that term keeps
 * SQLite from walking an index in the sort's order (the queue sorted by updated_at at 1M records: a sort
 * of every record, 3.2 s, instead of the first rows of `records_dataset_updated_idx`, migration 0035).
 */
export function orderTerms(b: Builder, sort: readonly SearchSort[]): string[] {
  const order: string[] = [];
  for (const s of sort) {
    if (!(s.scope.entity === "record" && s.scope.property !== "external_id")) order.push(`(${b.sortExpr(s.scope)}) IS NULL`);
    order.push(`${b.sortExpr(s.scope)} ${s.order === "desc" ? "DESC" : "ASC"}`);
  }
  return order;
}

/** Record statuses (records/status.ts). */
export const RECORD_STATUSES = ["pending", "completed"];

/** A `pending` response status filter (alone in its terms) and the other filters; null without one. */
export function splitPending(filters: SearchFilter[]): { others: SearchFilter[] } | null {
  const isPending = (f: SearchFilter) =>
    f.type === "terms" && f.scope.entity === "response_status" && f.values.length === 1 && f.values[0] === "pending";
  return filters.some(isPending) ? { others: filters.filter((f) => !isPending(f)) } : null;
}

/** Raw SQL through Kysely's connection (never interleaved with another request's transaction). */
export class SqliteQueries {
  constructor(protected readonly db: Kysely<DB>) {}

  protected async all<T>(sqlText: string, params: Param[]): Promise<T[]> {
    return (await this.db.executeQuery<T>(CompiledQuery.raw(sqlText, params))).rows;
  }

  /**
   * Admin `pending`: going from the answered records (of every dataset) beats one probe per record
   * of the dataset unless the instance holds many more responses than the dataset has records.
   * Estimates only (the responses' largest rowid, the dataset's seq span), both index lookups.
   */
  protected async answeredSetIsSmall(datasetId: string): Promise<boolean> {
    const row = (
      await this.all<{ responses: number | null; span: number | null }>(
        "SELECT (SELECT max(rowid) FROM responses) AS responses, (SELECT max(seq) FROM records WHERE dataset_id = ?) - (SELECT min(seq) FROM records WHERE dataset_id = ?) + 1 AS span",
        [datasetId, datasetId],
      )
    )[0];
    return (row?.responses ?? 0) <= 4 * Math.max(row?.span ?? 0, 1024);
  }
}

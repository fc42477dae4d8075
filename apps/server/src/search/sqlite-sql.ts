import { CompiledQuery, type Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import type { SearchFilter, SearchScope } from "./search-port.js";
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

/** Datetime bounds may be given with a timezone; stored timestamps are naive UTC ISO strings. */
function timeBound(value: number | string): string {
  if (typeof value === "number") return new Date(value * 1000).toISOString().replace("Z", "");
  const parsed = /[zZ]|[+-]\d\d:?\d\d$/.test(value) ? new Date(value) : null;
  return parsed && !Number.isNaN(parsed.getTime()) ? parsed.toISOString().replace("Z", "") : value;
}

export class Builder {
  params: Param[] = [];
  constructor(readonly userId: string | null) {}
  p(value: Param): string {
    this.params.push(value);
    return "?";
  }
  list(values: unknown[]): string {
    return values.map((v) => this.p(scalar(v))).join(", ");
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
    const s = f.scope;
    if (f.type === "terms") return this.terms(s, f.values);
    return this.range(s, f.ge, f.le);
  }

  terms(s: SearchScope, values: unknown[]): string {
    switch (s.entity) {
      case "record":
        return `r.${s.property} IN (${this.list(values)})`;
      case "metadata":
        return `EXISTS (SELECT 1 FROM record_metadata m WHERE m.seq = r.seq AND m.name = ${this.p(s.name)} AND m.value IN (${this.list(values)}))`;
      case "response_status": {
        const statuses = values.filter((v) => v !== "pending");
        const parts: string[] = [];
        if (values.includes("pending"))
          parts.push(`NOT EXISTS (SELECT 1 FROM responses s WHERE s.record_id = r.id${this.responseUserClause("s")})`);
        if (statuses.length > 0)
          parts.push(
            `EXISTS (SELECT 1 FROM responses s WHERE s.record_id = r.id${this.responseUserClause("s")} AND s.status IN (${this.list(statuses)}))`,
          );
        return parts.length ? `(${parts.join(" OR ")})` : "0";
      }
      case "response_value":
        return `EXISTS (SELECT 1 FROM responses s, json_each(s."values", ${this.p(`${jsonPath(s.questionName)}.value`)}) AS j WHERE s.record_id = r.id${this.responseUserClause("s")} AND j.value IN (${this.list(values)}))`;
      case "suggestion":
        if (s.property === "agent" || s.property === "type")
          return `EXISTS (SELECT 1 FROM suggestions g WHERE g.record_id = r.id AND g.question_id = ${this.p(s.questionId)} AND g.${s.property} IN (${this.list(values)}))`;
        return `EXISTS (SELECT 1 FROM suggestions g, json_each(g.${s.property === "score" ? "score" : "value"}) AS j WHERE g.record_id = r.id AND g.question_id = ${this.p(s.questionId)} AND j.value IN (${this.list(values)}))`;
    }
  }

  bounds(expr: string, ge: Param, le: Param): string {
    const parts: string[] = [];
    if (ge !== null) parts.push(`${expr} >= ${this.p(ge)}`);
    if (le !== null) parts.push(`${expr} <= ${this.p(le)}`);
    return parts.join(" AND ") || "1";
  }

  range(s: SearchScope, ge: number | string | null, le: number | string | null): string {
    switch (s.entity) {
      case "record":
        if (s.property === "inserted_at" || s.property === "updated_at") {
          return this.bounds(`r.${s.property}`, ge === null ? null : timeBound(ge), le === null ? null : timeBound(le));
        }
        return this.bounds(`r.${s.property}`, ge, le);
      case "metadata":
        return `EXISTS (SELECT 1 FROM record_metadata m WHERE m.seq = r.seq AND m.name = ${this.p(s.name)} AND ${this.bounds("m.value", ge, le)})`;
      case "response_status":
        return "1";
      case "response_value":
        return `EXISTS (SELECT 1 FROM responses s, json_each(s."values", ${this.p(`${jsonPath(s.questionName)}.value`)}) AS j WHERE s.record_id = r.id${this.responseUserClause("s")} AND ${this.bounds("j.value", ge, le)})`;
      case "suggestion": {
        if (s.property === "agent" || s.property === "type") {
          return `EXISTS (SELECT 1 FROM suggestions g WHERE g.record_id = r.id AND g.question_id = ${this.p(s.questionId)} AND ${this.bounds(`g.${s.property}`, ge, le)})`;
        }
        const column = s.property === "score" ? "score" : "value";
        return `EXISTS (SELECT 1 FROM suggestions g, json_each(g.${column}) AS j WHERE g.record_id = r.id AND g.question_id = ${this.p(s.questionId)} AND ${this.bounds("j.value", ge, le)})`;
      }
    }
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

/** Record statuses (records/status.ts). */
export const RECORD_STATUSES = ["pending", "completed"];

function scalar(v: unknown): Param {
  if (typeof v === "string" || typeof v === "number") return v;
  if (typeof v === "boolean") return v ? 1 : 0;
  return v === null || v === undefined ? null : JSON.stringify(v);
}

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

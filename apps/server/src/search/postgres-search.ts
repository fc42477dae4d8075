import { CompiledQuery, sql, type Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { unprocessable } from "../http/errors.js";
import { recordCountWithStatus } from "../records/counts.js";
import type { SearchFilter, SearchPort, SearchQuery, SearchResult, SearchScope } from "./search-port.js";

/**
 * PostgreSQL adapter of the search port, with the semantics of the SQLite adapter:
 * - text: `records_fts` (one tsvector per text field, GIN index, `tessera_search` configuration); every
 *   word is required within one field, `word*` is a prefix; the score is the best field's ts_rank.
 * - similarity: pgvector's cosine distance `<=>` on `record_vectors.vector::vector(n)`, served by a
 *   partial HNSW index per vector settings (created on first use); `hnsw.ef_search` follows the limit.
 * - filters and sorts on jsonb: a list value matches when any item matches (like SQLite's json_each);
 *   metadata terms use containment (`@>`), which the GIN index on `records.metadata` serves.
 */
type Param = string | number | null;

/** JSON value or each item of a JSON array, as rows `e(value)`. */
const items = (expr: string) => `jsonb_array_elements(CASE jsonb_typeof(${expr}) WHEN 'array' THEN ${expr} ELSE jsonb_build_array(${expr}) END) AS e(value)`;

/** Datetime bounds may be given with a timezone; stored timestamps are naive UTC ISO strings. */
function timeBound(value: number | string): string {
  if (typeof value === "number") return new Date(value * 1000).toISOString().replace("Z", "");
  const parsed = /[zZ]|[+-]\d\d:?\d\d$/.test(value) ? new Date(value) : null;
  return parsed && !Number.isNaN(parsed.getTime()) ? parsed.toISOString().replace("Z", "") : value;
}

/** Splits free text into words; a trailing `*` makes a prefix word. */
export function textWords(q: string): { word: string; prefix: boolean }[] {
  return q.split(/\s+/).map((w) => w.trim()).filter((w) => w.length > 0 && w !== "*").map((w) => {
    const prefix = w.endsWith("*") && w.length > 1;
    return { word: prefix ? w.slice(0, -1) : w, prefix };
  });
}

const json = (v: unknown): string => JSON.stringify(v === undefined ? null : v);

class Builder {
  params: Param[] = [];
  constructor(readonly userId: string | null) {}
  p(value: Param, cast = ""): string { this.params.push(value); return `$${this.params.length}${cast}`; }
  jsonList(values: unknown[]): string { return values.map((v) => this.p(json(v), "::jsonb")).join(", "); }

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
      case "record": return `r.${s.property} IN (${values.map((v) => this.p(v === null || v === undefined ? null : String(v))).join(", ")})`;
      case "metadata": {
        const options = values.flatMap((v) => [this.p(json({ [s.name]: v }), "::jsonb"), this.p(json({ [s.name]: [v] }), "::jsonb")]);
        return `(${options.map((o) => `r.metadata @> ${o}`).join(" OR ")})`;
      }
      case "response_status": {
        const statuses = values.filter((v) => v !== "pending");
        const parts: string[] = [];
        if (values.includes("pending")) parts.push(`NOT EXISTS (SELECT 1 FROM responses s WHERE s.record_id = r.id${this.responseUserClause("s")})`);
        if (statuses.length > 0) parts.push(`EXISTS (SELECT 1 FROM responses s WHERE s.record_id = r.id${this.responseUserClause("s")} AND s.status IN (${statuses.map((v) => this.p(String(v))).join(", ")}))`);
        return parts.length ? `(${parts.join(" OR ")})` : "false";
      }
      case "response_value":
        return `EXISTS (SELECT 1 FROM responses s CROSS JOIN LATERAL ${items(this.responseValue(s.questionName))} WHERE s.record_id = r.id${this.responseUserClause("s")} AND e.value IN (${this.jsonList(values)}))`;
      case "suggestion":
        if (s.property === "agent") return `EXISTS (SELECT 1 FROM suggestions g WHERE g.record_id = r.id AND g.question_id = ${this.p(s.questionId)} AND g.agent IN (${values.map((v) => this.p(String(v))).join(", ")}))`;
        return `EXISTS (SELECT 1 FROM suggestions g CROSS JOIN LATERAL ${items(`g.${s.property === "score" ? "score" : "value"}`)} WHERE g.record_id = r.id AND g.question_id = ${this.p(s.questionId)} AND e.value IN (${this.jsonList(values)}))`;
    }
  }

  /** Bounds on a JSON value: only values of the bound's JSON type compare (numbers with numbers, strings with strings). */
  jsonBounds(expr: string, ge: number | string | null, le: number | string | null): string {
    const parts: string[] = [];
    for (const [op, bound] of [[">=", ge], ["<=", le]] as const) {
      if (bound === null) continue;
      parts.push(`(jsonb_typeof(${expr}) = ${typeof bound === "number" ? "'number'" : "'string'"} AND ${expr} ${op} ${this.p(json(bound), "::jsonb")})`);
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
      case "metadata": return `EXISTS (SELECT 1 FROM ${items(`(r.metadata -> ${this.p(s.name, "::text")})`)} WHERE ${this.jsonBounds("e.value", ge, le)})`;
      case "response_status": return "true";
      case "response_value":
        return `EXISTS (SELECT 1 FROM responses s CROSS JOIN LATERAL ${items(this.responseValue(s.questionName))} WHERE s.record_id = r.id${this.responseUserClause("s")} AND ${this.jsonBounds("e.value", ge, le)})`;
      case "suggestion": {
        const column = s.property === "score" ? "score" : "value";
        return `EXISTS (SELECT 1 FROM suggestions g CROSS JOIN LATERAL ${items(`g.${column}`)} WHERE g.record_id = r.id AND g.question_id = ${this.p(s.questionId)} AND ${this.jsonBounds("e.value", ge, le)})`;
      }
    }
  }

  /** A sort key; JSON null counts as missing (sorted last), like SQLite's json_extract. */
  sortExpr(s: SearchScope): string {
    switch (s.entity) {
      case "record": return s.property === "inserted_at" ? "r.seq" : `r.${s.property}`;
      case "metadata": return `nullif(r.metadata -> ${this.p(s.name, "::text")}, 'null'::jsonb)`;
      case "response_status": return `(SELECT min(s.status) FROM responses s WHERE s.record_id = r.id${this.responseUserClause("s")})`;
      case "response_value":
        return `(SELECT nullif(${this.responseValue(s.questionName)}, 'null'::jsonb) AS v FROM responses s WHERE s.record_id = r.id${this.responseUserClause("s")} ORDER BY v ASC NULLS LAST LIMIT 1)`;
      case "suggestion": {
        if (s.property === "agent") return `(SELECT g.agent FROM suggestions g WHERE g.record_id = r.id AND g.question_id = ${this.p(s.questionId)})`;
        const column = s.property === "score" ? "score" : "value";
        return `(SELECT nullif(e.value, 'null'::jsonb) AS v FROM suggestions g CROSS JOIN LATERAL ${items(`g.${column}`)} WHERE g.record_id = r.id AND g.question_id = ${this.p(s.questionId)} ORDER BY v DESC NULLS LAST LIMIT 1)`;
      }
    }
  }

  /** A tsquery requiring every word (prefix words with `:*`), built from parameters only. */
  tsQuery(words: { word: string; prefix: boolean }[]): string {
    return words.map(({ word, prefix }) => (prefix
      ? `to_tsquery('tessera_search', quote_literal(lower(${this.p(word)})) || ':*')`
      : `plainto_tsquery('tessera_search', ${this.p(word)})`)).join(" && ");
  }
}

/**
 * The number of records a text search matches (with its filters), without ranking them: the page's
 * query ranks every match with ts_rank (which reads each match's tsvector), the total needs only the
 * match itself (100K bench records, a word in 79% of them: 810 -> 331 ms in PostgreSQL).
 */
function textCount(query: SearchQuery): { sql: string; params: Param[] } {
  const c = new Builder(query.userId);
  const q = c.tsQuery(textWords(query.text!.q));
  const field = query.text!.field !== null ? ` AND f.field = ${c.p(query.text!.field)}` : "";
  const where = [`r.dataset_id = ${c.p(query.datasetId)}`, `EXISTS (SELECT 1 FROM records_fts f WHERE f.record_seq = r.seq AND f.tsv @@ (${q})${field})`];
  for (const f of query.filters) where.push(c.filter(f));
  return { sql: `SELECT count(*) AS n FROM records r WHERE ${where.join(" AND ")}`, params: c.params };
}

export interface PostgresSearchOptions {
  /** pgvector is installed (else similarity answers 422 with the reason). */
  vectorSearch: boolean;
}

export class PostgresSearch implements SearchPort {
  private readonly indexed = new Set<string>();
  constructor(private readonly db: Kysely<DB>, private readonly options: PostgresSearchOptions) {}

  private async all<T>(db: Kysely<DB>, sqlText: string, params: Param[]): Promise<T[]> {
    return (await db.executeQuery<T>(CompiledQuery.raw(sqlText, params))).rows;
  }

  /** A partial HNSW index (cosine) for one vector settings; idempotent and safe between replicas. */
  async ensureVectorIndex(settingsId: string, dimensions: number): Promise<void> {
    const key = `${settingsId}:${dimensions}`;
    if (this.indexed.has(key) || !/^[0-9a-fA-F-]{1,64}$/.test(settingsId) || !Number.isInteger(dimensions) || dimensions < 1 || dimensions > 16000) return;
    const name = `record_vectors_hnsw_${settingsId.replace(/-/g, "").toLowerCase()}_${dimensions}`;
    try {
      await sql.raw(`CREATE INDEX IF NOT EXISTS ${name} ON record_vectors USING hnsw ((vector::vector(${dimensions})) vector_cosine_ops) WHERE vector_settings_id = '${settingsId}'`).execute(this.db);
    } catch (error) {
      // Another replica created it at the same moment (unique violation on the catalog): fine.
      if (!/already exists|duplicate key/.test(String(error))) throw error;
    }
    this.indexed.add(key);
  }

  async search(query: SearchQuery): Promise<SearchResult> {
    const b = new Builder(query.userId);
    const ctes: string[] = [];
    let from = "records r";
    let score = "NULL::float8";
    if (query.text) {
      const words = textWords(query.text.q);
      if (words.length === 0) return { hits: [], total: 0 };
      const fieldClause = query.text.field !== null ? ` AND f.field = ${b.p(query.text.field)}` : "";
      ctes.push(`q AS (SELECT ${b.tsQuery(words)} AS query)`);
      ctes.push(`t AS (SELECT f.record_seq AS seq, max(ts_rank(f.tsv, q.query)) AS rank FROM records_fts f, q WHERE f.tsv @@ q.query${fieldClause} GROUP BY f.record_seq)`);
      from += " JOIN t ON t.seq = r.seq";
      score = "t.rank::float8";
    }
    let dimensions = 0;
    if (query.vector) {
      if (!this.options.vectorSearch) {
        throw unprocessable("Vector similarity search needs the PostgreSQL extension pgvector, which this database does not have (see docs/deployment.md)");
      }
      dimensions = query.vector.value.length;
      await this.ensureVectorIndex(query.vector.settingsId, dimensions);
      score = `(v.vector::vector(${dimensions}) <=> ${b.p(json(query.vector.value))}::vector(${dimensions}))`;
      from += ` JOIN record_vectors v ON v.record_id = r.id AND v.vector_settings_id = ${b.p(query.vector.settingsId)}`;
    }
    const where = [`r.dataset_id = ${b.p(query.datasetId)}`];
    if (query.vector?.excludeRecordId) where.push(`r.id <> ${b.p(query.vector.excludeRecordId)}`);
    for (const f of query.filters) where.push(b.filter(f));
    const base = `${ctes.length ? `WITH ${ctes.join(", ")} ` : ""}SELECT r.id AS id, r.seq AS seq, ${score} AS score FROM ${from} WHERE ${where.join(" AND ")}`;
    const count = query.text ? textCount(query) : { sql: `SELECT count(*) AS n FROM (${base}) AS matches`, params: [...b.params] };

    if (query.vector) {
      const direction = query.vector.order === "most_similar" ? "ASC" : "DESC";
      const pageSql = `${base} ORDER BY score ${direction}, r.seq LIMIT ${b.p(query.limit)}`;
      const efSearch = Math.min(1000, Math.max(40, query.limit));
      const rows = await this.db.transaction().execute(async (trx) => {
        await sql.raw(`SET LOCAL hnsw.ef_search = ${efSearch}`).execute(trx);
        return this.all<{ id: string; score: number }>(trx, pageSql, b.params);
      });
      // Cosine similarity in [-1, 1] as the query score (1 = same direction).
      return { hits: rows.map((r) => ({ recordId: r.id, score: 1 - r.score })), total: rows.length };
    }

    const order: string[] = [];
    for (const s of query.sort) {
      // Missing values last in both directions.
      order.push(`${b.sortExpr(s.scope)} ${s.order === "desc" ? "DESC" : "ASC"} NULLS LAST`);
    }
    if (query.sort.length === 0 && query.text) order.push("score DESC");
    order.push("r.seq ASC");
    const pageSql = `${base} ORDER BY ${order.join(", ")} LIMIT ${b.p(query.limit)} OFFSET ${b.p(query.offset)}`;
    const [rows, total] = await Promise.all([
      this.all<{ id: string; score: number | null }>(this.db, pageSql, b.params),
      this.queueTotal(query).then(async (queue) => queue ?? Number((await this.all<{ n: number }>(this.db, count.sql, count.params))[0]?.n ?? 0)),
    ]);
    return { hits: rows.map((r) => ({ recordId: r.id, score: r.score })), total };
  }

  /**
   * The annotator's queue total (`/me`, response status pending, otherwise only record status terms,
   * no text or vector): the dataset's record counters (migration 0011) minus the user's answered
   * records of those statuses. The same number as the NOT EXISTS count, which visits every record
   * of the dataset.
   */
  private async queueTotal(query: SearchQuery): Promise<number | null> {
    if (query.text || query.vector || query.userId === null) return null;
    const isPending = (f: SearchFilter) => f.type === "terms" && f.scope.entity === "response_status" && f.values.length === 1 && f.values[0] === "pending";
    if (!query.filters.some(isPending)) return null;
    const others = query.filters.filter((f) => !isPending(f));
    if (!others.every((f) => f.type === "terms" && f.scope.entity === "record" && f.scope.property === "status")) return null;
    const statuses = ["pending", "completed"].filter((s) => others.every((f) => f.type === "terms" && f.values.includes(s)));
    if (statuses.length === 0) return 0;
    const answered = await sql<{ n: number }>`select count(*) as n from responses s join records r on r.id = s.record_id
      where s.user_id = ${query.userId} and r.dataset_id = ${query.datasetId} and r.status in (${sql.join(statuses)})`.execute(this.db);
    return (await recordCountWithStatus(this.db, query.datasetId, statuses)) - Number(answered.rows[0]?.n ?? 0);
  }
}

import { CompiledQuery, type Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { rawSqliteOf } from "../db/database.js";
import { metadataRowsOf } from "../db/migrations/0009-record-metadata-index.js";
import { encodeVector } from "../records/read.js";
import type { SearchFilter, SearchPort, SearchQuery, SearchResult, SearchScope } from "./search-port.js";

/**
 * SQLite adapter of the search port: FTS5 (`records_fts`, one row per text field, rowid = seq*1024+i)
 * for text; for similarity a sqlite-vec `vec0` KNN table per vector setting (built on first use,
 * see `knnTable`), with `vec_distance_cosine` over `record_vectors` as the exact fallback; the
 * `record_metadata` index (migration 0009) for metadata filters and JSON1 for response / suggestion
 * filters. Queries run through Kysely's connection so they never interleave with another request's
 * transaction.
 */
type Param = string | number | Buffer | null;

const jsonPath = (key: string) => `$."${key.replace(/"/g, '""')}"`;

/** Turns free text into a safe FTS5 expression: every word quoted, all words required, `word*` kept as a prefix. */
export function ftsExpression(q: string): string | null {
  const words = q.split(/\s+/).map((w) => w.trim()).filter((w) => w.length > 0);
  if (words.length === 0) return null;
  return words.map((w) => {
    const prefix = w.endsWith("*") && w.length > 1;
    const core = (prefix ? w.slice(0, -1) : w).replace(/"/g, '""');
    return `"${core}"${prefix ? "*" : ""}`;
  }).join(" ");
}

/** Datetime bounds may be given with a timezone; stored timestamps are naive UTC ISO strings. */
function timeBound(value: number | string): string {
  if (typeof value === "number") return new Date(value * 1000).toISOString().replace("Z", "");
  const parsed = /[zZ]|[+-]\d\d:?\d\d$/.test(value) ? new Date(value) : null;
  return parsed && !Number.isNaN(parsed.getTime()) ? parsed.toISOString().replace("Z", "") : value;
}

class Builder {
  params: Param[] = [];
  constructor(readonly userId: string | null) {}
  p(value: Param): string { this.params.push(value); return "?"; }
  list(values: unknown[]): string { return values.map((v) => this.p(scalar(v))).join(", "); }

  responseUserClause(alias: string): string {
    return this.userId ? ` AND ${alias}.user_id = ${this.p(this.userId)}` : "";
  }

  /** `FROM` tail: the dataset's records that have a response (of the user, or of anyone), as `r`, ending in a WHERE. */
  answeredRecords(datasetId: string): string {
    // CROSS JOIN: from the responses (user_id, record_id / record_id, user_id indexes) to their records, never the other way.
    const from = this.userId !== null ? `responses mine CROSS JOIN records r ON r.id = mine.record_id WHERE mine.user_id = ${this.p(this.userId)}`
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
      case "record": return `r.${s.property} IN (${this.list(values)})`;
      case "metadata": return `EXISTS (SELECT 1 FROM record_metadata m WHERE m.seq = r.seq AND m.name = ${this.p(s.name)} AND m.value IN (${this.list(values)}))`;
      case "response_status": {
        const statuses = values.filter((v) => v !== "pending");
        const parts: string[] = [];
        if (values.includes("pending")) parts.push(`NOT EXISTS (SELECT 1 FROM responses s WHERE s.record_id = r.id${this.responseUserClause("s")})`);
        if (statuses.length > 0) parts.push(`EXISTS (SELECT 1 FROM responses s WHERE s.record_id = r.id${this.responseUserClause("s")} AND s.status IN (${this.list(statuses)}))`);
        return parts.length ? `(${parts.join(" OR ")})` : "0";
      }
      case "response_value":
        return `EXISTS (SELECT 1 FROM responses s, json_each(s."values", ${this.p(`${jsonPath(s.questionName)}.value`)}) AS j WHERE s.record_id = r.id${this.responseUserClause("s")} AND j.value IN (${this.list(values)}))`;
      case "suggestion":
        if (s.property === "agent") return `EXISTS (SELECT 1 FROM suggestions g WHERE g.record_id = r.id AND g.question_id = ${this.p(s.questionId)} AND g.agent IN (${this.list(values)}))`;
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
      case "metadata": return `EXISTS (SELECT 1 FROM record_metadata m WHERE m.seq = r.seq AND m.name = ${this.p(s.name)} AND ${this.bounds("m.value", ge, le)})`;
      case "response_status": return "1";
      case "response_value":
        return `EXISTS (SELECT 1 FROM responses s, json_each(s."values", ${this.p(`${jsonPath(s.questionName)}.value`)}) AS j WHERE s.record_id = r.id${this.responseUserClause("s")} AND ${this.bounds("j.value", ge, le)})`;
      case "suggestion": {
        const column = s.property === "score" ? "score" : "value";
        return `EXISTS (SELECT 1 FROM suggestions g, json_each(g.${column}) AS j WHERE g.record_id = r.id AND g.question_id = ${this.p(s.questionId)} AND ${this.bounds("j.value", ge, le)})`;
      }
    }
  }

  sortExpr(s: SearchScope): string {
    switch (s.entity) {
      case "record": return s.property === "inserted_at" ? "r.seq" : `r.${s.property}`;
      case "metadata": return `json_extract(r.metadata, ${this.p(jsonPath(s.name))})`;
      case "response_status": return `(SELECT min(s.status) FROM responses s WHERE s.record_id = r.id${this.responseUserClause("s")})`;
      case "response_value": return `(SELECT min(json_extract(s."values", ${this.p(`${jsonPath(s.questionName)}.value`)})) FROM responses s WHERE s.record_id = r.id${this.responseUserClause("s")})`;
      case "suggestion": {
        if (s.property === "agent") return `(SELECT g.agent FROM suggestions g WHERE g.record_id = r.id AND g.question_id = ${this.p(s.questionId)})`;
        const column = s.property === "score" ? "score" : "value";
        return `(SELECT max(j.value) FROM suggestions g, json_each(g.${column}) AS j WHERE g.record_id = r.id AND g.question_id = ${this.p(s.questionId)})`;
      }
    }
  }
}

const RECORD_STATUSES = ["pending", "completed"];
const FEW_MATCHES = 2048;
const KNN_MAX_K = 4096; // sqlite-vec's limit for `k`
const KNN_PREFIX = "record_vectors_knn_";

function scalar(v: unknown): Param {
  if (typeof v === "string" || typeof v === "number") return v;
  if (typeof v === "boolean") return v ? 1 : 0;
  return v === null || v === undefined ? null : JSON.stringify(v);
}

export class SqliteSearch implements SearchPort {
  /** `fewMatches`: up to it the queue's text count probes each match (textCount); tests set -1 to exercise the other path. */
  constructor(private readonly db: Kysely<DB>, private readonly options: { fewMatches?: number } = {}) {}

  private async all<T>(sqlText: string, params: Param[]): Promise<T[]> {
    return (await this.db.executeQuery<T>(CompiledQuery.raw(sqlText, params))).rows;
  }

  async search(query: SearchQuery): Promise<SearchResult> {
    if (query.filters.some((f) => f.scope.entity === "metadata")) await this.catchUpMetadata();
    if (query.vector) {
      const knn = await this.knnSearch(query);
      if (knn) return knn;
    }
    if (query.text && !query.vector) return this.textSearch(query, query.text);
    const b = new Builder(query.userId);
    const ctes: string[] = [];
    let from = "records r";
    let score = "NULL";
    if (query.text) {
      const expression = ftsExpression(query.text.q);
      if (expression === null) return { hits: [], total: 0 };
      const match = b.p(expression);
      const fieldClause = query.text.field !== null ? ` AND field = ${b.p(query.text.field)}` : "";
      // bm25() cannot run inside an aggregate: score the matches in a materialized CTE, then keep each record's best field.
      ctes.push(`m AS MATERIALIZED (SELECT rowid AS fts_rowid, bm25(records_fts) AS bm FROM records_fts WHERE records_fts MATCH ${match}${fieldClause})`);
      ctes.push("t AS (SELECT fts_rowid >> 10 AS seq, min(bm) AS bm FROM m GROUP BY fts_rowid >> 10)");
      // CROSS JOIN keeps the matches as the outer loop: left to itself the planner may scan the
      // dataset's records and rescan the (unindexed) matches for each one, quadratic in the count query
      // (5 s instead of 2 ms at 5K records).
      from = "t CROSS JOIN records r ON t.seq = r.seq";
      score = "-t.bm";
    }
    if (query.vector) {
      // Placeholders are numbered in text order: the score (select list) comes before the join.
      score = `vec_distance_cosine(v.vector, ${b.p(encodeVector(query.vector.value))})`;
      from += ` JOIN record_vectors v ON v.record_id = r.id AND v.vector_settings_id = ${b.p(query.vector.settingsId)}`;
    }
    const where = [`r.dataset_id = ${b.p(query.datasetId)}`];
    if (query.vector?.excludeRecordId) where.push(`r.id <> ${b.p(query.vector.excludeRecordId)}`);
    for (const f of query.filters) where.push(b.filter(f));
    const base = `${ctes.length ? `WITH ${ctes.join(", ")} ` : ""}SELECT r.id AS id, ${score} AS score FROM ${from} WHERE ${where.join(" AND ")}`;
    const countParams = [...b.params];

    if (query.vector) {
      const direction = query.vector.order === "most_similar" ? "ASC" : "DESC";
      const rows = await this.all<{ id: string; score: number }>(`${base} ORDER BY score ${direction}, r.seq LIMIT ${b.p(query.limit)}`, b.params);
      // Cosine similarity in [-1, 1] as the query score (1 = same direction).
      return { hits: rows.map((r) => ({ recordId: r.id, score: 1 - r.score })), total: rows.length };
    }

    const order: string[] = [];
    for (const s of query.sort) {
      // Missing values last in both directions; each use of the expression binds its own parameters.
      order.push(`(${b.sortExpr(s.scope)}) IS NULL`);
      order.push(`${b.sortExpr(s.scope)} ${s.order === "desc" ? "DESC" : "ASC"}`);
    }
    if (query.sort.length === 0 && query.text) order.push("score DESC");
    order.push("r.seq ASC");
    const pageSql = `${base} ORDER BY ${order.join(", ")} LIMIT ${b.p(query.limit)} OFFSET ${b.p(query.offset)}`;
    const rows = await this.all<{ id: string; score: number | null }>(pageSql, b.params);
    const count = await this.pendingQueueCount(query)
      ?? (await this.all<{ n: number }>(`SELECT count(*) AS n FROM (${base})`, countParams))[0]?.n ?? 0;
    return { hits: rows.map((r) => ({ recordId: r.id, score: r.score })), total: count };
  }

  /**
   * Indexes the metadata of records inserted since the last call into `record_metadata` (migration
   * 0009: no insert trigger, it would slow ingestion); updates and deletes are kept by triggers.
   */
  private async catchUpMetadata(): Promise<void> {
    const state = await this.all<{ done: number; last: number }>(
      "SELECT (SELECT seq FROM search_index_state WHERE name = 'record_metadata') AS done, coalesce((SELECT max(seq) FROM records), 0) AS last", []);
    const { done, last } = state[0]!;
    if (done >= last) return;
    await this.db.transaction().execute(async (trx) => {
      const run = (text: string, params: Param[]) => trx.executeQuery(CompiledQuery.raw(text, params));
      await run(`INSERT OR IGNORE INTO record_metadata (dataset_id, name, value, seq) SELECT * FROM (${metadataRowsOf("r", "records AS r, ")}) WHERE seq > ?`, [done]);
      await run("UPDATE search_index_state SET seq = (SELECT coalesce(max(seq), 0) FROM records) WHERE name = 'record_metadata'", []);
    });
  }

  private knnTables = new Map<string, string>();
  private knnCleaned = false;

  /**
   * The `vec0` KNN table of a vector setting (rowid = records.seq, cosine distance), created and
   * filled from `record_vectors` on first use and kept in sync by triggers on `record_vectors`
   * (insert, update of the vector, delete) and `records` (delete). Tables of deleted vector settings
   * are dropped on the first use in a process. Null when the setting is unknown.
   */
  private async knnTable(settingsId: string): Promise<string | null> {
    const cached = this.knnTables.get(settingsId);
    if (cached) return cached;
    if (!/^[0-9a-fA-F-]{1,64}$/.test(settingsId)) return null;
    const name = `${KNN_PREFIX}${settingsId.replace(/-/g, "").toLowerCase()}`;
    const quoted = `'${settingsId}'`;
    const ok = await this.db.transaction().execute(async (trx) => {
      const run = async <T>(text: string, params: Param[] = []) => (await trx.executeQuery<T>(CompiledQuery.raw(text, params))).rows;
      if (!this.knnCleaned) {
        const tables = await run<{ name: string }>(`SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE '${KNN_PREFIX}%' AND sql LIKE 'CREATE VIRTUAL TABLE%'`);
        const live = new Set((await run<{ id: string }>("SELECT id FROM vectors_settings")).map((r) => `${KNN_PREFIX}${r.id.replace(/-/g, "").toLowerCase()}`));
        for (const t of tables.filter((t) => !live.has(t.name))) {
          for (const suffix of ["ai", "au", "ad", "rd"]) await run(`DROP TRIGGER IF EXISTS ${t.name}_${suffix}`);
          await run(`DROP TABLE IF EXISTS ${t.name}`);
        }
        this.knnCleaned = true;
      }
      if ((await run(`SELECT 1 FROM sqlite_master WHERE name = ?`, [name])).length > 0) return true;
      const settings = (await run<{ dimensions: number; dataset_id: string }>("SELECT dimensions, dataset_id FROM vectors_settings WHERE id = ?", [settingsId]))[0];
      if (!settings || !Number.isInteger(settings.dimensions) || settings.dimensions < 1) return false;
      const dataset = `'${settings.dataset_id.replace(/'/g, "''")}'`;
      await run(`CREATE VIRTUAL TABLE ${name} USING vec0(embedding float[${settings.dimensions}] distance_metric=cosine)`);
      await run(`INSERT INTO ${name} (rowid, embedding) SELECT r.seq, v.vector FROM record_vectors v CROSS JOIN records r ON r.id = v.record_id WHERE v.vector_settings_id = ?`, [settingsId]);
      await run(`CREATE TRIGGER ${name}_ai AFTER INSERT ON record_vectors WHEN new.vector_settings_id = ${quoted} BEGIN
        INSERT INTO ${name} (rowid, embedding) SELECT seq, new.vector FROM records WHERE id = new.record_id; END`);
      await run(`CREATE TRIGGER ${name}_au AFTER UPDATE OF vector ON record_vectors WHEN new.vector_settings_id = ${quoted} BEGIN
        DELETE FROM ${name} WHERE rowid = (SELECT seq FROM records WHERE id = new.record_id);
        INSERT INTO ${name} (rowid, embedding) SELECT seq, new.vector FROM records WHERE id = new.record_id; END`);
      // A vector removed (its record still there); a record deleted (its vector's cascade no longer finds it).
      await run(`CREATE TRIGGER ${name}_ad AFTER DELETE ON record_vectors WHEN old.vector_settings_id = ${quoted} BEGIN
        DELETE FROM ${name} WHERE rowid = (SELECT seq FROM records WHERE id = old.record_id); END`);
      await run(`CREATE TRIGGER ${name}_rd AFTER DELETE ON records WHEN old.dataset_id = ${dataset} BEGIN
        DELETE FROM ${name} WHERE rowid = old.seq; END`);
      return true;
    });
    if (!ok) return null;
    this.knnTables.set(settingsId, name);
    return name;
  }

  /**
   * Similarity through the KNN table: the k nearest (k over-fetched, grown while the filters reject
   * too many), then the filters and the exact score on those candidates only. Exact: a candidate
   * counts only when nearer than the k-th neighbour, so nothing unseen can rank before it.
   * `least_similar` asks for the nearest neighbours of the negated vector (cosine distance 2 - d).
   * Null (fall back to the exact scan) when the filters keep too few of the 4096 nearest.
   */
  private async knnSearch(query: SearchQuery): Promise<SearchResult | null> {
    const vector = query.vector!;
    const table = await this.knnTable(vector.settingsId);
    if (!table) return null;
    const most = vector.order === "most_similar";
    const probe = encodeVector(most ? vector.value : vector.value.map((x) => -x));
    const exact = encodeVector(vector.value);
    // Over-fetch: the queue's status filters keep most neighbours, other filters (metadata, values) may keep few.
    const selective = query.filters.some((f) => f.scope.entity !== "response_status" && f.scope.entity !== "record");
    let k = Math.min(KNN_MAX_K, Math.max(64, selective ? query.limit * 8 : query.limit * 2 + 16));
    for (;;) {
      const near = await this.all<{ seq: number; distance: number }>(`SELECT rowid AS seq, distance FROM ${table} WHERE embedding MATCH ? AND k = ?`, [probe, k]);
      const complete = near.length < k;
      const cutoff = complete ? Infinity : near[near.length - 1]!.distance;
      const b = new Builder(query.userId);
      const where = [`r.dataset_id = ${b.p(query.datasetId)}`];
      if (vector.excludeRecordId) where.push(`r.id <> ${b.p(vector.excludeRecordId)}`);
      for (const f of query.filters) where.push(b.filter(f));
      const seqs = near.filter((n) => n.distance < cutoff).map((n) => n.seq);
      const head = new Builder(query.userId);
      const select = `SELECT r.id AS id, r.seq AS seq, vec_distance_cosine(v.vector, ${head.p(exact)}) AS score FROM json_each(${head.p(JSON.stringify(seqs))}) AS c`
        + ` CROSS JOIN records r ON r.seq = c.value JOIN record_vectors v ON v.record_id = r.id AND v.vector_settings_id = ${head.p(vector.settingsId)}`;
      const rows = seqs.length === 0 ? [] : await this.all<{ id: string; seq: number; score: number }>(`${select} WHERE ${where.join(" AND ")}`, [...head.params, ...b.params]);
      if (complete || rows.length >= query.limit) {
        rows.sort((x, y) => (most ? x.score - y.score : y.score - x.score) || x.seq - y.seq);
        const hits = rows.slice(0, query.limit).map((r) => ({ recordId: r.id, score: 1 - r.score }));
        return { hits, total: hits.length };
      }
      if (k >= KNN_MAX_K) return null;
      // Grow by the observed rejection rate (at least 4x), capped at sqlite-vec's limit.
      const kept = Math.max(rows.length, 1) / Math.max(seqs.length, 1);
      k = Math.min(KNN_MAX_K, Math.max(k * 4, Math.ceil((query.limit / kept) * 1.5)));
    }
  }

  /**
   * The total of a search with response status `pending` (no text or vector query) as
   * count(other filters) - count(records passing them that have a response): of the user on `/me`
   * (from the user's responses, `responses_user_record_idx`), of anyone on the admin search (from the
   * distinct answered records, `responses_record_user_uq`). Same number as the NOT EXISTS count, but
   * one probe per answered record instead of one per record of the dataset (tools/bench: 42 ms ->
   * under 1 ms for the default queue at 10K records).
   */
  private async pendingQueueCount(query: SearchQuery): Promise<number | null> {
    if (query.text || query.vector) return null;
    const split = splitPending(query.filters);
    if (!split) return null;
    if (query.userId === null && !(await this.answeredSetIsSmall(query.datasetId))) return null;
    const all = new Builder(query.userId);
    const allSql = `SELECT count(*) AS n FROM records r WHERE r.dataset_id = ${all.p(query.datasetId)}${split.others.map((f) => ` AND ${all.filter(f)}`).join("")}`;
    const answered = new Builder(query.userId);
    const answeredSql = `SELECT count(*) AS n FROM ${answered.answeredRecords(query.datasetId)}${split.others.map((f) => ` AND ${answered.filter(f)}`).join("")}`;
    const [a, c] = [await this.all<{ n: number }>(allSql, all.params), await this.all<{ n: number }>(answeredSql, answered.params)];
    return (a[0]?.n ?? 0) - (c[0]?.n ?? 0);
  }

  /**
   * Admin `pending`: going from the answered records (of every dataset) beats one probe per record
   * of the dataset unless the instance holds many more responses than the dataset has records.
   * Estimates only (the responses' largest rowid, the dataset's seq span), both index lookups.
   */
  private async answeredSetIsSmall(datasetId: string): Promise<boolean> {
    const row = (await this.all<{ responses: number | null; span: number | null }>(
      "SELECT (SELECT max(rowid) FROM responses) AS responses, (SELECT max(seq) FROM records WHERE dataset_id = ?) - (SELECT min(seq) FROM records WHERE dataset_id = ?) + 1 AS span", [datasetId, datasetId]))[0];
    return (row?.responses ?? 0) <= 4 * Math.max(row?.span ?? 0, 1024);
  }

  /**
   * Text search (no vector): FTS5 restricted to the dataset's rowid range (rowid = seq * 1024 + i,
   * and a dataset's records are mostly contiguous in seq), counted without scoring, ranked inside
   * FTS5 with a bounded sort (`ORDER BY bm25 LIMIT k`) when the order is the text score.
   */
  private async textSearch(query: SearchQuery, text: { q: string; field: string | null }): Promise<SearchResult> {
    const expression = ftsExpression(text.q);
    if (expression === null) return { hits: [], total: 0 };
    const span = (await this.all<{ lo: number | null; hi: number | null; shared: number }>(
      `SELECT lo, hi, EXISTS (SELECT 1 FROM datasets d WHERE d.id <> ? AND EXISTS (SELECT 1 FROM records x WHERE x.dataset_id = d.id AND x.seq BETWEEN lo AND hi)) AS shared
       FROM (SELECT (SELECT min(seq) FROM records WHERE dataset_id = ?) AS lo, (SELECT max(seq) FROM records WHERE dataset_id = ?) AS hi)`, [query.datasetId, query.datasetId, query.datasetId]))[0];
    if (!span || span.lo === null || span.hi === null) return { hits: [], total: 0 };
    // The FTS rows of the dataset's range: every query below starts from these.
    const fts = (b: Builder) => `records_fts WHERE records_fts MATCH ${b.p(expression)} AND rowid BETWEEN ${b.p(span.lo! * 1024)} AND ${b.p(span.hi! * 1024 + 1023)}${text.field !== null ? ` AND field = ${b.p(text.field)}` : ""}`;

    const total = (span.shared === 0 ? await this.queueTextCount(query, span.lo, span.hi, expression, text.field) : null)
      ?? await this.textCount(query, fts, span.shared === 0);
    const need = query.offset + query.limit;
    if (total === 0 || query.offset >= total || query.limit === 0) return { hits: [], total };

    if (query.sort.length > 0) {
      // Ordered by other values: every match is a candidate; scores only for the matches.
      const b = new Builder(query.userId);
      const order: string[] = [];
      const where = [`r.dataset_id = ${b.p(query.datasetId)}`, ...query.filters.map((f) => b.filter(f))];
      for (const s of query.sort) {
        order.push(`(${b.sortExpr(s.scope)}) IS NULL`);
        order.push(`${b.sortExpr(s.scope)} ${s.order === "desc" ? "DESC" : "ASC"}`);
      }
      const head = new Builder(query.userId);
      // bm25() cannot run inside an aggregate: score the matches in a materialized CTE, then keep each record's best field.
      const cte = `WITH s AS MATERIALIZED (SELECT rowid AS fr, bm25(records_fts) AS bm FROM ${fts(head)}), t AS (SELECT fr >> 10 AS seq, min(bm) AS bm FROM s GROUP BY fr >> 10) `;
      const rows = await this.all<{ id: string; score: number }>(`${cte}SELECT r.id AS id, -t.bm AS score FROM t CROSS JOIN records r ON r.seq = t.seq WHERE ${where.join(" AND ")} ORDER BY ${order.join(", ")}, r.seq ASC LIMIT ${b.p(query.limit)} OFFSET ${b.p(query.offset)}`, [...head.params, ...b.params]);
      return { hits: rows.map((r) => ({ recordId: r.id, score: r.score })), total };
    }

    // By score: the k best FTS rows (score, then rowid: the final order, seq ascending on ties), a
    // record's first row being its best field; the filters on those records only. The records seen
    // are an exact prefix of the ordering, so k grows only while too few of them pass.
    let k = Math.max(64, Math.ceil(need * 3) + 32);
    for (;;) {
      const b = new Builder(query.userId);
      const rows = await this.all<{ fr: number; bm: number }>(`SELECT rowid AS fr, bm25(records_fts) AS bm FROM ${fts(b)} ORDER BY bm, rowid LIMIT ${b.p(k)}`, b.params);
      const complete = rows.length < k;
      const best = new Map<number, number>();
      for (const row of rows) { const seq = Math.floor(row.fr / 1024); if (!best.has(seq)) best.set(seq, row.bm); }
      const f = new Builder(query.userId);
      const passing = best.size === 0 ? [] : await this.all<{ seq: number; id: string }>(
        `SELECT r.seq AS seq, r.id AS id FROM json_each(${f.p(JSON.stringify([...best.keys()]))}) AS c CROSS JOIN records r ON r.seq = c.value WHERE r.dataset_id = ${f.p(query.datasetId)}${query.filters.map((x) => ` AND ${f.filter(x)}`).join("")}`, f.params);
      if (complete || passing.length >= need) {
        const idOf = new Map(passing.map((r) => [r.seq, r.id]));
        const hits = [...best].filter(([seq]) => idOf.has(seq)).slice(query.offset, need).map(([seq, bm]) => ({ recordId: idOf.get(seq)!, score: -bm }));
        return { hits, total };
      }
      // Grow by the observed pass rate (at least 4x).
      const kept = Math.max(passing.length, 1) / Math.max(rows.length, 1);
      k = Math.max(k * 4, Math.ceil((need / kept) * 1.5));
    }
  }

  /**
   * Exact total of a text search whose filters are only a record status terms filter and/or response
   * status `pending` (the annotation queue's shape), on a dataset alone in its seq range: the distinct
   * matching seqs read in rowid order (no scoring, no per-match probe), minus those among the few
   * records the filters exclude (records of the other statuses, answered records), looked up by binary
   * search. Same number as textCount, at the cost of the match walk alone (bench dataset, 100K records,
   * a word in 79% of them: 77 -> 22 ms of CPU). Null when the filters have another shape or the
   * excluded set could be large (admin search over an instance holding many more responses).
   */
  private async queueTextCount(query: SearchQuery, lo: number, hi: number, expression: string, field: string | null): Promise<number | null> {
    const raw = rawSqliteOf(this.db);
    if (!raw) return null;
    const split = splitPending(query.filters);
    const others = split ? split.others : query.filters;
    const statusFilter = (f: SearchFilter) => f.type === "terms" && f.scope.entity === "record" && f.scope.property === "status";
    if (others.length > 1 || (others.length === 1 && !statusFilter(others[0]!)) || (!split && others.length === 0)) return null;
    if (split && query.userId === null && !(await this.answeredSetIsSmall(query.datasetId))) return null;
    const statuses = others.length === 1 && others[0]!.type === "terms" ? others[0]!.values : null;
    // The connection itself (no transaction of another request in progress), read synchronously.
    return this.db.connection().execute(async () => {
      const fieldClause = field !== null ? " AND field = ?" : "";
      const rows = raw.prepare(`SELECT rowid >> 10 FROM records_fts WHERE records_fts MATCH ? AND rowid BETWEEN ? AND ?${fieldClause} ORDER BY rowid`)
        .pluck().all(...[expression, lo * 1024, hi * 1024 + 1023, ...(field !== null ? [field] : [])]) as number[];
      const seqs: number[] = [];
      for (const seq of rows) if (seq !== seqs[seqs.length - 1]) seqs.push(seq);
      // Few matches: textCount's probe per match is cheaper than reading every excluded record.
      if (seqs.length <= (this.options.fewMatches ?? FEW_MATCHES)) return null;
      const excluded = new Set<number>();
      if (statuses) {
        // Record statuses are `pending` and `completed` (records/status.ts): the others, through records_dataset_status_seq_idx.
        const dropped = RECORD_STATUSES.filter((v) => !statuses.includes(v));
        if (dropped.length > 0) {
          for (const seq of raw.prepare(`SELECT seq FROM records WHERE dataset_id = ? AND status IN (${dropped.map(() => "?").join(", ")})`).pluck().all(query.datasetId, ...dropped) as number[]) excluded.add(seq);
        }
      }
      if (split) {
        const answered = query.userId !== null
          ? raw.prepare("SELECT r.seq FROM responses mine CROSS JOIN records r ON r.id = mine.record_id WHERE mine.user_id = ? AND r.dataset_id = ?").pluck().all(query.userId, query.datasetId)
          : raw.prepare("SELECT r.seq FROM (SELECT DISTINCT record_id FROM responses) AS mine CROSS JOIN records r ON r.id = mine.record_id WHERE r.dataset_id = ?").pluck().all(query.datasetId);
        for (const seq of answered as number[]) excluded.add(seq);
      }
      let dropped = 0;
      for (const seq of excluded) {
        let a = 0, b = seqs.length;
        while (a < b) { const mid = (a + b) >> 1; if (seqs[mid]! < seq) a = mid + 1; else b = mid; }
        if (a < seqs.length && seqs[a] === seq) dropped++;
      }
      return seqs.length - dropped;
    });
  }

  /**
   * Number of the dataset's records matching the text and the filters. The matches are the distinct
   * seqs of the FTS rows (no scoring); the dataset is checked through `records_dataset_seq_idx`
   * (or not at all when no other dataset has records in the range). A `pending` response status
   * filter is counted as matches - answered matches (see pendingQueueCount) when there are more
   * matches than responses to go through, else with one probe per match.
   */
  private async textCount(query: SearchQuery, fts: (b: Builder) => string, exclusive: boolean): Promise<number> {
    const b = new Builder(query.userId);
    const cte = `WITH m AS MATERIALIZED (SELECT DISTINCT rowid >> 10 AS seq FROM ${fts(b)}) `;
    const perMatch = (filters: SearchFilter[]) => {
      if (filters.length === 0 && exclusive) return "SELECT count(*) FROM m";
      // Record status and metadata filters read nothing else of the record: stay in the (dataset, status, seq) index.
      const statusOnly = filters.some((f) => f.scope.entity === "record" && f.scope.property === "status" && f.type === "terms")
        && filters.every((f) => f.scope.entity === "metadata" || (f.scope.entity === "record" && f.scope.property === "status" && f.type === "terms"));
      return `SELECT count(*) FROM m CROSS JOIN records r${statusOnly ? " INDEXED BY records_dataset_status_seq_idx" : ""} ON r.seq = m.seq WHERE r.dataset_id = ${b.p(query.datasetId)}${filters.map((f) => ` AND ${b.filter(f)}`).join("")}`;
    };
    const split = splitPending(query.filters);
    let sqlText: string;
    if (!split) sqlText = `${cte}SELECT (${perMatch(query.filters)}) AS n`;
    else {
      // CASE evaluates only the branch taken. Responses to go through: the user's, or (admin) all of them (estimate: largest rowid).
      const responses = query.userId !== null ? `(SELECT count(*) FROM responses WHERE user_id = ${b.p(query.userId)})` : "(SELECT coalesce(max(rowid), 0) FROM responses)";
      const probe = perMatch(query.filters);
      const all = perMatch(split.others);
      // `+r.seq`: the IN list must stay a probe per answered record, not become a records lookup per match.
      const answered = `SELECT count(*) FROM ${b.answeredRecords(query.datasetId)} AND +r.seq IN m${split.others.map((f) => ` AND ${b.filter(f)}`).join("")}`;
      sqlText = `${cte}SELECT CASE WHEN (SELECT count(*) FROM m) <= ${responses} THEN (${probe}) ELSE (${all}) - (${answered}) END AS n`;
    }
    const rows = await this.all<{ n: number }>(sqlText, b.params);
    return rows[0]?.n ?? 0;
  }
}

/** A `pending` response status filter (alone in its terms) and the other filters; null without one. */
function splitPending(filters: SearchFilter[]): { others: SearchFilter[] } | null {
  const isPending = (f: SearchFilter) => f.type === "terms" && f.scope.entity === "response_status" && f.values.length === 1 && f.values[0] === "pending";
  return filters.some(isPending) ? { others: filters.filter((f) => !isPending(f)) } : null;
}

const ports = new WeakMap<object, SqliteSearch>();
/** One adapter per store connection. */
export function sqliteSearchFor(db: Kysely<DB>): SqliteSearch {
  let port = ports.get(db);
  if (!port) { port = new SqliteSearch(db); ports.set(db, port); }
  return port;
}

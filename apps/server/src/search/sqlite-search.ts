import { CompiledQuery, type Kysely } from "kysely";
import type { DB } from "../db/schema.js";
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

const KNN_MAX_K = 4096; // sqlite-vec's limit for `k`
const KNN_PREFIX = "record_vectors_knn_";

function scalar(v: unknown): Param {
  if (typeof v === "string" || typeof v === "number") return v;
  if (typeof v === "boolean") return v ? 1 : 0;
  return v === null || v === undefined ? null : JSON.stringify(v);
}

export class SqliteSearch implements SearchPort {
  constructor(private readonly db: Kysely<DB>) {}

  private async all<T>(sqlText: string, params: Param[]): Promise<T[]> {
    return (await this.db.executeQuery<T>(CompiledQuery.raw(sqlText, params))).rows;
  }

  async search(query: SearchQuery): Promise<SearchResult> {
    if (query.filters.some((f) => f.scope.entity === "metadata")) await this.catchUpMetadata();
    if (query.vector) {
      const knn = await this.knnSearch(query);
      if (knn) return knn;
    }
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
    const queueCount = this.pendingQueueCount(query);
    const [rows, count] = await Promise.all([
      this.all<{ id: string; score: number | null }>(pageSql, b.params),
      queueCount ?? this.all<{ n: number }>(`SELECT count(*) AS n FROM (${base})`, countParams).then((r) => r[0]?.n ?? 0),
    ]);
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
   * The annotation queue's total (`/me`, response status pending, no text or vector query) as
   * count(other filters) - count(the user's responses on records passing them). Same number as the
   * NOT EXISTS count, but one probe per answered record instead of one per record of the dataset
   * (tools/bench: 42 ms -> under 1 ms for the default queue at 10K records).
   */
  private pendingQueueCount(query: SearchQuery): Promise<number> | null {
    const userId = query.userId;
    if (userId === null || query.text || query.vector) return null;
    const isPending = (f: SearchFilter) => f.type === "terms" && f.scope.entity === "response_status" && f.values.length === 1 && f.values[0] === "pending";
    if (!query.filters.some(isPending)) return null;
    const others = query.filters.filter((f) => !isPending(f));
    const all = new Builder(userId);
    const allSql = `SELECT count(*) AS n FROM records r WHERE r.dataset_id = ${all.p(query.datasetId)}${others.map((f) => ` AND ${all.filter(f)}`).join("")}`;
    const answered = new Builder(userId);
    // CROSS JOIN: from the user's responses (user_id, record_id index) to their records, never the other way.
    const answeredSql = `SELECT count(*) AS n FROM responses mine CROSS JOIN records r ON r.id = mine.record_id WHERE mine.user_id = ${answered.p(userId)} AND r.dataset_id = ${answered.p(query.datasetId)}${others.map((f) => ` AND ${answered.filter(f)}`).join("")}`;
    return Promise.all([this.all<{ n: number }>(allSql, all.params), this.all<{ n: number }>(answeredSql, answered.params)])
      .then(([a, c]) => (a[0]?.n ?? 0) - (c[0]?.n ?? 0));
  }
}

const ports = new WeakMap<object, SqliteSearch>();
/** One adapter per store connection. */
export function sqliteSearchFor(db: Kysely<DB>): SqliteSearch {
  let port = ports.get(db);
  if (!port) { port = new SqliteSearch(db); ports.set(db, port); }
  return port;
}

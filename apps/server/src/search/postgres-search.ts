import { sql, type Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { unprocessable } from "../http/errors.js";
import { recordCountWithStatus } from "../records/counts.js";
import { countLimit, type SearchPort, type SearchQuery, type SearchResult } from "./search-port.js";
import { Builder, json, queueFilters, queryRows, textCount, textWords } from "./postgres-sql.js";
import { PostgresText } from "./postgres-text.js";
import { PostgresRankAhead } from "./postgres-rank-ahead.js";

export interface PostgresSearchOptions {
  /** pgvector is installed (else similarity answers 422 with the reason). */
  vectorSearch: boolean;
  /** false: text in score order runs the plain SQL below too, without the cached matches of postgres-text.ts (tests compare both). */
  textCache?: boolean;
  /** Options of the frequent words ranked ahead (postgres-rank-ahead.ts); false: none are used. */
  rankAhead?: ConstructorParameters<typeof PostgresRankAhead>[1] | false;
}

/**
 * PostgreSQL adapter of the search port, with the semantics of the SQLite adapter:
 * - text: `records_fts` (one tsvector per text field, GIN index, `tessera_search` configuration); every
 *   word is required within one field, `word*` is a prefix; the score is the best field's ts_rank. In
 *   score order through the cached matches of postgres-text.ts; sorted by other values here.
 * - similarity: pgvector's cosine distance `<=>` on `record_vectors.vector::vector(n)`, served by a
 *   partial HNSW index per vector settings (created on first use); `hnsw.ef_search` follows the limit.
 * - filters and sorts on jsonb: a list value matches when any item matches (like SQLite's json_each);
 *   metadata terms use containment (`@>`), which the GIN index on `records.metadata` serves.
 */
export class PostgresSearch implements SearchPort {
  private readonly indexed = new Set<string>();
  private iterative: Promise<boolean> | null = null;
  private readonly text: PostgresText;
  /** The frequent words ranked ahead (issue 31); the server starts its background ranking (server.ts). */
  readonly rankAhead: PostgresRankAhead | null;
  constructor(
    private readonly db: Kysely<DB>,
    private readonly options: PostgresSearchOptions,
  ) {
    this.rankAhead = options.rankAhead === false ? null : new PostgresRankAhead(db, options.rankAhead ?? {});
    this.text = new PostgresText(db, undefined, this.rankAhead);
  }

  /** A partial HNSW index (cosine) for one vector settings; idempotent and safe between replicas. */
  async ensureVectorIndex(settingsId: string, dimensions: number): Promise<void> {
    const key = `${settingsId}:${dimensions}`;
    if (
      this.indexed.has(key) ||
      !/^[0-9a-fA-F-]{1,64}$/.test(settingsId) ||
      !Number.isInteger(dimensions) ||
      dimensions < 1 ||
      dimensions > 16000
    )
      return;
    const name = `record_vectors_hnsw_${settingsId.replace(/-/g, "").toLowerCase()}_${dimensions}`;
    try {
      await sql
        .raw(
          `CREATE INDEX IF NOT EXISTS ${name} ON record_vectors USING hnsw ((vector::vector(${dimensions})) vector_cosine_ops) WHERE vector_settings_id = '${settingsId}'`,
        )
        .execute(this.db);
    } catch (error) {
      // Another replica created it at the same moment (unique violation on the catalog): fine.
      if (!/already exists|duplicate key/.test(String(error))) throw error;
    }
    this.indexed.add(key);
  }

  /**
   * pgvector 0.8+ can go on scanning the HNSW index past `ef_search` candidates until LIMIT rows pass
   * the query's conditions (`hnsw.iterative_scan`). Without it a similarity search for 1,000 records
   * from a record (the SDK's deepest page) can find 999: the 1,000 candidates include the reference
   * record, which the query leaves out; filters lose candidates the same way.
   */
  private iterativeScan(): Promise<boolean> {
    this.iterative ??= sql<{ v: string | null }>`select extversion as v from pg_extension where extname = 'vector'`
      .execute(this.db)
      .then((r) => {
        const [major, minor] = (r.rows[0]?.v ?? "0.0").split(".").map(Number);
        return (major ?? 0) > 0 || (minor ?? 0) >= 8;
      })
      .catch(() => false);
    return this.iterative;
  }

  async search(query: SearchQuery): Promise<SearchResult> {
    // Text in score order: the cached matches (postgres-text.ts).
    if (query.text && !query.vector && query.sort.length === 0 && this.options.textCache !== false) return this.text.search(query);
    const b = new Builder(query.userId);
    const ctes: string[] = [];
    let from = "records r";
    let score = "NULL::float8";
    if (query.text) {
      const words = textWords(query.text.q);
      if (words.length === 0) return { hits: [], total: 0 };
      const fieldClause = query.text.field !== null ? ` AND f.field = ${b.p(query.text.field)}` : "";
      ctes.push(`q AS (SELECT ${b.tsQuery(words)} AS query)`);
      ctes.push(
        `t AS (SELECT f.record_seq AS seq, max(ts_rank(f.tsv, q.query)) AS rank FROM records_fts f, q WHERE f.tsv @@ q.query${fieldClause} GROUP BY f.record_seq)`,
      );
      from += " JOIN t ON t.seq = r.seq";
      score = "t.rank::float8";
    }
    let dimensions = 0;
    if (query.vector) {
      if (!this.options.vectorSearch) {
        throw unprocessable(
          "Vector similarity search needs the PostgreSQL extension pgvector, which this database does not have (see docs/deployment.md)",
        );
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
    const limit = countLimit(query);
    const count = query.text ? textCount(query, limit) : { sql: `SELECT count(*) AS n FROM (${base}) AS matches`, params: [...b.params] };

    if (query.vector) {
      const direction = query.vector.order === "most_similar" ? "ASC" : "DESC";
      const pageSql = `${base} ORDER BY score ${direction}, r.seq LIMIT ${b.p(query.limit)}`;
      const efSearch = Math.min(1000, Math.max(40, query.limit));
      const iterative = await this.iterativeScan();
      const rows = await this.db.transaction().execute(async (trx) => {
        await sql.raw(`SET LOCAL hnsw.ef_search = ${efSearch}`).execute(trx);
        if (iterative) await sql.raw("SET LOCAL hnsw.iterative_scan = strict_order").execute(trx);
        return queryRows<{ id: string; score: number }>(trx, pageSql, b.params);
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
      queryRows<{ id: string; score: number | null }>(this.db, pageSql, b.params),
      this.queueTotal(query).then(
        async (queue) => queue ?? Number((await queryRows<{ n: number }>(this.db, count.sql, count.params))[0]?.n ?? 0),
      ),
    ]);
    if (limit !== null && total > limit)
      return { hits: rows.map((r) => ({ recordId: r.id, score: r.score })), total: limit, totalIsLowerBound: true };
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
    const queue = queueFilters(query.filters);
    if (!queue?.pending) return null;
    const statuses = queue.statuses;
    if (statuses.length === 0) return 0;
    const answered = await sql<{ n: number }>`select count(*) as n from responses s join records r on r.id = s.record_id
      where s.user_id = ${query.userId} and r.dataset_id = ${query.datasetId} and r.status in (${sql.join(statuses)})`.execute(this.db);
    return (await recordCountWithStatus(this.db, query.datasetId, statuses)) - Number(answered.rows[0]?.n ?? 0);
  }
}

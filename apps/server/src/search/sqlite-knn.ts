import { CompiledQuery } from "kysely";
import { encodeVector } from "../records/read.js";
import type { SearchQuery, SearchResult } from "./search-port.js";
import { Builder, type Param, SqliteQueries } from "./sqlite-sql.js";

const KNN_MAX_K = 4096; // sqlite-vec's limit for `k`
const KNN_PREFIX = "record_vectors_knn_";

/** Similarity search of the SQLite adapter: sqlite-vec `vec0` KNN tables per vector setting. */
export class SqliteKnn extends SqliteQueries {
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
  async knnSearch(query: SearchQuery): Promise<SearchResult | null> {
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
}

import pg from "pg";

/**
 * `--settle` on PostgreSQL: waits until the frequent words of every dataset of at least 1,000 records
 * (the server's FREQUENT_RECORDS) are ranked ahead at its current
 * text version (apps/server/src/search/postgres-rank-ahead.ts, migration 0024), which the server's
 * background job does in the database, and every vector settings has a valid HNSW index and (pgvector
 * 0.7+) far-side IVFFlat index (`ivfi`, inner product; built in the background once the writes pause:
 * apps/server/src/search/postgres-vector-index.ts), and the database has no other statement running twice in
 * a row 2 s apart (the servers' background reads, such as each replica's reading of the datasets' vocabularies
 * for prefixes, apps/server/src/search/postgres-text-vocabulary.ts: 54-121 s at 1M records), or until
 * `deadline` (performance.now()).
 */
export async function rankedAhead(databaseUrl: string, deadline: number): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    for (;;) {
      const { rows } = await client.query<{ n: string }>(
        `SELECT count(*) AS n FROM datasets d WHERE NOT EXISTS (SELECT 1 FROM text_ranked_ahead_runs a WHERE a.dataset_id = d.id
           AND a.finished_at IS NOT NULL AND a.version >= (SELECT coalesce(max(t.id), 0) FROM text_search_changes t WHERE t.dataset_id = d.id))
           AND (SELECT coalesce(sum(c.n), 0) FROM dataset_record_counts c WHERE c.dataset_id = d.id) >= 1000`,
      );
      // The server's job builds the index (halfvec; vector before pgvector 0.7) of a settings of 10,000 vectors or more.
      const vectors = await client.query<{ n: string }>(
        `SELECT count(*) AS n FROM vectors_settings s WHERE NOT EXISTS (SELECT 1 FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid
           WHERE c.relname = 'record_vectors_' || (SELECT CASE WHEN string_to_array(e.extversion, '.')::int[] >= '{0,7}' THEN 'hnswh_' ELSE 'hnsw_' END
             FROM pg_extension e WHERE e.extname = 'vector') || replace(lower(s.id), '-', '') || '_' || s.dimensions AND i.indisvalid
             AND (NOT EXISTS (SELECT 1 FROM pg_extension e WHERE e.extname = 'vector' AND string_to_array(e.extversion, '.')::int[] >= '{0,7}')
               OR EXISTS (SELECT 1 FROM pg_class fc JOIN pg_index fi ON fi.indexrelid = fc.oid
                 WHERE fc.relname = 'record_vectors_ivfi_' || replace(lower(s.id), '-', '') || '_' || s.dimensions AND fi.indisvalid)))
           AND (SELECT count(*) FROM (SELECT 1 FROM record_vectors v WHERE v.vector_settings_id = s.id LIMIT 10000) AS first) >= 10000`,
      );
      const waiting = Number(rows[0]?.n ?? 0) + Number(vectors.rows[0]?.n ?? 0);
      if (waiting === 0 || performance.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 2000));
    }
    for (let idle = 0; idle < 2 && performance.now() < deadline;) {
      const active = await client.query<{ n: string }>(
        `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend'
           AND state = 'active' AND pid <> pg_backend_pid()`,
      );
      idle = Number(active.rows[0]?.n ?? 0) === 0 ? idle + 1 : 0;
      if (idle < 2) await new Promise((r) => setTimeout(r, 2000));
    }
  } finally {
    await client.end();
  }
}

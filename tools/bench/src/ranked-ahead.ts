import pg from "pg";

/**
 * `--settle` on PostgreSQL: waits until the frequent words of every dataset of at least 1,000 records
 * (the server's FREQUENT_RECORDS) are ranked ahead at its current
 * text version (apps/server/src/search/postgres-rank-ahead.ts, migration 0024), which the server's
 * background job does in the database, and every vector settings has its valid IVFFlat index (SIMILARITY_INDEXES_WAITING),
 * and the database has no other statement running twice in
 * a row 2 s apart (the servers' background reads, such as each replica's reading of the datasets' vocabularies
 * for prefixes, apps/server/src/search/postgres-text-vocabulary.ts: 54-121 s at 1M records), or until
 * `deadline` (performance.now()).
 */
/**
 * The vector settings still waiting for their IVFFlat index (`ivfi`, inner product; pgvector 0.7+, at most 4,000
 * dimensions), which the server's job builds for a settings of 10,000 vectors or more once the writes pause
 * (apps/server/src/search/postgres-vector-index.ts); meanwhile searches scan a bounded share of the vectors.
 */
export const SIMILARITY_INDEXES_WAITING = `SELECT count(*) AS n FROM vectors_settings s
  WHERE s.dimensions <= 4000 AND EXISTS (SELECT 1 FROM pg_extension e WHERE e.extname = 'vector' AND string_to_array(e.extversion, '.')::int[] >= '{0,7}')
    AND NOT EXISTS (SELECT 1 FROM pg_class fc JOIN pg_index fi ON fi.indexrelid = fc.oid
      WHERE fc.relname = 'record_vectors_ivfi_' || replace(lower(s.id), '-', '') || '_' || s.dimensions AND fi.indisvalid)
    AND (SELECT count(*) FROM (SELECT 1 FROM record_vectors v WHERE v.vector_settings_id = s.id LIMIT 10000) AS first) >= 10000`;

/** Polls SIMILARITY_INDEXES_WAITING every 500 ms until none waits (true) or `deadline` (performance.now(); false). */
export async function similarityIndexesReady(databaseUrl: string, deadline: number): Promise<boolean> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    for (;;) {
      if (Number((await client.query<{ n: string }>(SIMILARITY_INDEXES_WAITING)).rows[0]?.n ?? 0) === 0) return true;
      if (performance.now() > deadline) return false;
      await new Promise((r) => setTimeout(r, 500));
    }
  } finally {
    await client.end();
  }
}

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
      const vectors = await client.query<{ n: string }>(SIMILARITY_INDEXES_WAITING);
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

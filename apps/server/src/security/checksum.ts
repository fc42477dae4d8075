import { createHash } from "node:crypto";
import type SQLite from "better-sqlite3";
import { sql } from "kysely";
import type { Store } from "../db/store.js";

/** Tables whose rows change without anyone changing data (sign-in bookkeeping, job leases). */
export const VOLATILE_TABLES = new Set(["oauth_states"]);

/**
 * Derived search state that background work and read paths bring up to date at any time (the
 * deferred text indexer and its FTS5 shadow tables, the warm-up after writes, counter folds, the
 * metadata index catch-up and the similarity change log pruned on reads): not data a request
 * changes, and a refused call cannot be told apart from them by timing. The data they derive from
 * (records, responses, vectors...) stays checked.
 */
export const DERIVED_TABLES = new Set(["search_index_state", "dataset_record_counts", "record_metadata", "record_vectors_knn_changes"]);
const derived = (name: string) => DERIVED_TABLES.has(name) || name.startsWith("records_fts_");

/**
 * A checksum per ordinary table of the embedded database (virtual tables and DERIVED_TABLES are
 * skipped). Tests compare it before and after requests that must fail.
 */
export function tableChecksums(sqlite: SQLite.Database, skip: ReadonlySet<string> = VOLATILE_TABLES): Record<string, string> {
  const tables = sqlite
    .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .all() as { name: string; sql: string | null }[];
  const out: Record<string, string> = {};
  for (const { name, sql } of tables) {
    if (skip.has(name) || derived(name) || /^\s*CREATE\s+VIRTUAL/i.test(sql ?? "")) continue;
    const quoted = `"${name.replace(/"/g, '""')}"`;
    const rows = (sqlite.prepare(`SELECT * FROM ${quoted}`).all() as Record<string, unknown>[])
      .map((row) =>
        JSON.stringify(row, (_k, v: unknown) => (Buffer.isBuffer(v) ? v.toString("base64") : typeof v === "bigint" ? v.toString() : v)),
      )
      .sort();
    const hash = createHash("sha256");
    for (const row of rows) hash.update(`${row}\n`);
    out[name] = `${rows.length}:${hash.digest("hex").slice(0, 16)}`;
  }
  return out;
}

/** PostgreSQL's derived search state (tsvector rows and their change log), skipped like DERIVED_TABLES. */
const POSTGRES_DERIVED = new Set(["records_fts", "text_search_changes", "record_search", "dataset_response_counts"]);

/**
 * `tableChecksums` for either store: the embedded file's tables, or every table of PostgreSQL's
 * `public` schema (each row as text, sorted; the job queue's own schema is not data). The fuzz
 * suite compares it before and after failing requests on both stores.
 */
export async function storeChecksums(store: Pick<Store, "db" | "sqlite">): Promise<Record<string, string>> {
  if (store.sqlite) return tableChecksums(store.sqlite);
  const tables = await sql<{ name: string }>`
    SELECT table_name AS name FROM information_schema.tables
    WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`.execute(store.db);
  const out: Record<string, string> = {};
  for (const { name } of tables.rows) {
    if (VOLATILE_TABLES.has(name) || DERIVED_TABLES.has(name) || POSTGRES_DERIVED.has(name)) continue;
    const { rows } = await sql<{ n: string; digest: string | null }>`
      SELECT count(*)::text AS n, md5(string_agg(t::text, E'\n' ORDER BY t::text)) AS digest FROM ${sql.table(name)} t`.execute(store.db);
    out[name] = `${rows[0]!.n}:${(rows[0]!.digest ?? "").slice(0, 16)}`;
  }
  return out;
}

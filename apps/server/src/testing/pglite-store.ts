import { PGlite, types } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite/vector";
import { unaccent } from "@electric-sql/pglite/contrib/unaccent";
import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from "kysely";
import type { Store } from "../db/database.js";
import { postgresKysely, preparePostgres } from "../db/postgres.js";

/**
 * A PostgreSQL store on PGlite (PostgreSQL compiled to WASM, in process) with the pgvector and
 * unaccent extensions: tests run the real PostgreSQL SQL, including pgvector's HNSW and `<=>`,
 * without a server. PGlite has one session, so the pool hands out one connection at a time.
 */
export interface PgliteStore extends Store {
  pglite: PGlite;
}

const COMMAND = /^\s*(insert|update|delete|merge)\b/i;

export async function openPgliteStore(options: { pgvector?: boolean } = {}): Promise<PgliteStore> {
  const pglite = await PGlite.create({
    extensions: options.pgvector === false ? { unaccent } : { vector, unaccent },
    // The row shapes of the node-postgres pool (db/postgres.ts): JSON as text, bigint/numeric as numbers, booleans as 1/0.
    parsers: {
      [types.JSON]: (v: string) => v,
      [types.JSONB]: (v: string) => v,
      [types.INT8]: (v: string) => Number(v),
      [types.NUMERIC]: (v: string) => Number(v),
      [types.BOOL]: (v: string) => (v === "t" ? 1 : 0),
    },
  });
  let queue: Promise<void> = Promise.resolve();
  const client = (release: () => void): PostgresPoolClient => ({
    query: (async (sqlText: string, parameters: readonly unknown[]) => {
      const result = await pglite.query<Record<string, unknown>>(sqlText, [...parameters]);
      const command = COMMAND.exec(sqlText)?.[1]?.toUpperCase() ?? "SELECT";
      return { command, rowCount: result.affectedRows ?? result.rows.length, rows: result.rows } as PostgresQueryResult<unknown>;
    }) as PostgresPoolClient["query"],
    release,
  });
  const pool: PostgresPool = {
    connect: () =>
      new Promise<PostgresPoolClient>((resolve) => {
        queue = queue.then(() => new Promise<void>((release) => resolve(client(release))));
      }),
    end: async () => {
      await pglite.close();
    },
    options: {},
  };
  const db = postgresKysely(pool);
  const { vectorSearch } = await preparePostgres(db);
  return {
    db,
    dialect: "postgres",
    sqlite: null,
    databaseUrl: null,
    vectorSearch,
    pglite,
    close: async () => {
      await db.destroy();
    },
  };
}

import pg from "pg";
import {
  Kysely, OperationNodeTransformer, PostgresDialect, sql,
  type KyselyPlugin, type PluginTransformQueryArgs, type PluginTransformResultArgs, type PostgresPool,
  type PrimitiveValueListNode, type QueryResult, type RootOperationNode, type UnknownRow, type ValueNode,
} from "kysely";
import type { DB } from "./schema.js";
import type { Store } from "./store.js";
import { migrate } from "./migrate.js";
import { onRecordsWritten } from "../records/write-hooks.js";
import { PlannerStatistics } from "./planner-statistics.js";

/** The store cannot start (clear message for the operator, no stack trace needed). */
export class StoreStartupError extends Error {
  override name = "StoreStartupError";
}

/**
 * Type parsers that keep PostgreSQL rows in the shapes the SQLite store returns (so serializers
 * are shared): json/jsonb stay text, bigint (`count(*)`, identities) and numeric become numbers,
 * booleans (`exists(...)`, comparisons) become 1/0 as in SQLite.
 */
const ROW_TYPES: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: "text" | "binary") => {
    if (oid === pg.types.builtins.JSON || oid === pg.types.builtins.JSONB) return (value: string) => value;
    if (oid === pg.types.builtins.INT8 || oid === pg.types.builtins.NUMERIC) return (value: string) => Number(value);
    if (oid === pg.types.builtins.BOOL) return (value: string) => (value === "t" ? 1 : 0);
    return format === "binary" ? pg.types.getTypeParser(oid, "binary") : pg.types.getTypeParser(oid, "text");
  }) as pg.CustomTypesConfig["getTypeParser"],
};

class BufferToFloatArray extends OperationNodeTransformer {
  protected override transformValue(node: ValueNode): ValueNode {
    const value = node.value;
    return value instanceof Uint8Array ? { ...node, value: floatsOf(value) } : super.transformValue(node);
  }
  protected override transformPrimitiveValueList(node: PrimitiveValueListNode): PrimitiveValueListNode {
    return { ...node, values: node.values.map((v) => (v instanceof Uint8Array ? floatsOf(v) : v)) };
  }
}

const floatsOf = (blob: Uint8Array): number[] => Array.from(new Float32Array(Uint8Array.from(blob).buffer));

/**
 * The code stores record vectors as float32 blobs (`Buffer`, as in SQLite); on PostgreSQL the column
 * is `real[]`. This plugin converts blob parameters to float arrays on the way in and `vector`
 * arrays back to float32 blobs on the way out. PostgreSQL tables have no bytea column, so every
 * blob parameter is a vector.
 */
export class PostgresVectorPlugin implements KyselyPlugin {
  private readonly transformer = new BufferToFloatArray();
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return this.transformer.transformNode(args.node);
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    for (const row of args.result.rows) {
      const vector = row.vector;
      if (Array.isArray(vector)) row.vector = Buffer.from(new Float32Array(vector as number[]).buffer);
    }
    return args.result;
  }
}

/** A Kysely instance over a PostgreSQL pool (node-postgres, or any pool of the same shape such as PGlite's adapter). */
export function postgresKysely(pool: PostgresPool): Kysely<DB> {
  return new Kysely<DB>({ dialect: new PostgresDialect({ pool }), plugins: [new PostgresVectorPlugin()] });
}

/**
 * Migrates a PostgreSQL database and checks vector support: installs pgvector when it is available
 * and allowed, and refuses to start when vector settings exist without it.
 */
export async function preparePostgres(db: Kysely<DB>): Promise<{ vectorSearch: boolean }> {
  try {
    await sql`create extension if not exists vector`.execute(db);
  } catch {
    // Not installed on the server or no permission: checked below.
  }
  await migrate(db);
  const vectorSearch = await hasPgvector(db);
  if (!vectorSearch) {
    const { n } = await db.selectFrom("vectors_settings").select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow();
    if (Number(n) > 0) {
      throw new StoreStartupError(
        `Tessera cannot start: the database has ${n} vector setting(s) but the PostgreSQL extension pgvector ("vector") is not installed. `
        + "Install pgvector on the database server and run `CREATE EXTENSION vector;` in this database as a superuser (see docs/deployment.md), "
        + "or use a database without vector settings.",
      );
    }
  }
  return { vectorSearch };
}

export async function hasPgvector(db: Kysely<DB>): Promise<boolean> {
  const result = await sql<{ n: number }>`select count(*) as n from pg_extension where extname = 'vector'`.execute(db);
  return Number(result.rows[0]?.n ?? 0) > 0;
}

export interface PostgresStoreOptions { poolSize?: number | undefined }

/** Opens a PostgreSQL store (`DATABASE_URL`), migrates it and checks vector support. */
export async function openPostgresStore(databaseUrl: string, options: PostgresStoreOptions = {}): Promise<Store> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: options.poolSize ?? 10, types: ROW_TYPES });
  pool.on("error", (error) => console.error("PostgreSQL pool:", error.message));
  const db = postgresKysely(pool);
  try {
    const { vectorSearch } = await preparePostgres(db);
    const statistics = new PlannerStatistics(db, {}, (error) => { console.error("PostgreSQL: ANALYZE after an import failed", error); });
    onRecordsWritten(db, (written) => statistics.noteWrite(written.created));
    return { db, dialect: "postgres", sqlite: null, databaseUrl, vectorSearch, close: async () => { statistics.stop(); await db.destroy(); } };
  } catch (error) {
    await db.destroy();
    throw error;
  }
}

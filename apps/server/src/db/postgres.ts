import pg from "pg";
import {
  Kysely,
  OperationNodeTransformer,
  PostgresDialect,
  sql,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type PostgresPool,
  type PrimitiveValueListNode,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
  type ValueNode,
} from "kysely";
import type { DB } from "./schema.js";
import type { Store } from "./store.js";
import { migrate } from "./migrate.js";
import { onRecordsWritten } from "../records/write-hooks.js";
import { PlannerStatistics } from "./planner-statistics.js";
import { backgroundErrorLogger, isDatabaseUnavailable, POOL_BUSY_CODE, rootMessage } from "./availability.js";
import { FAR_OPS, halfvecExpression } from "../search/postgres-vector-index.js";

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
 * arrays back to float32 blobs on the way out. The only bytea column (`upload_chunks.data`) is
 * written with `withoutPlugins()`; every other blob parameter is a vector.
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
 * and allowed, proves that it works (the IVFFlat index similarity uses, built and queried), and refuses to start when
 * vector settings exist without it or when it is installed but broken.
 */
export async function preparePostgres(db: Kysely<DB>): Promise<{ vectorSearch: boolean; vectorSearchOff?: string }> {
  let createError: unknown = null;
  try {
    await sql`create extension if not exists vector`.execute(db);
  } catch (error) {
    // Not installed on the server or no permission: checked below (and said at start).
    if (isDatabaseUnavailable(error)) throw error;
    createError = error;
  }
  await migrate(db);
  const vectorSearch = await hasPgvector(db);
  if (vectorSearch) {
    const broken = await probePgvector(db);
    if (broken) {
      throw new StoreStartupError(
        `Tessera cannot start: the PostgreSQL extension pgvector ("vector") is installed in this database but does not work: ${broken}. ` +
          'If a PostgreSQL backend died (the server log says "terminated by signal 4: Illegal instruction"), its vector.so was compiled for a CPU ' +
          "with instructions this machine lacks (e.g. AVX-512): install a pgvector built for this machine (see docs/deployment.md).",
      );
    }
  } else {
    const { n } = await db
      .selectFrom("vectors_settings")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    if (Number(n) > 0) {
      throw new StoreStartupError(
        `Tessera cannot start: the database has ${n} vector setting(s) but the PostgreSQL extension pgvector ("vector") is not installed. ` +
          "Install pgvector on the database server and run `CREATE EXTENSION vector;` in this database as a superuser (see docs/deployment.md), " +
          "or use a database without vector settings.",
      );
    }
    return {
      vectorSearch,
      vectorSearchOff:
        'PostgreSQL: similarity search is off: the extension pgvector ("vector") is not installed in this database' +
        (createError ? ` (CREATE EXTENSION vector: ${rootMessage(createError)})` : "") +
        ". Everything else works and similarity searches answer 422, but once a dataset has vector settings Tessera will not start without it. " +
        "Install pgvector on the database server and run `CREATE EXTENSION vector;` in this database as a superuser (see docs/deployment.md).",
    };
  }
  return { vectorSearch };
}

export async function hasPgvector(db: Kysely<DB>): Promise<boolean> {
  const result = await sql<{ n: number }>`select count(*) as n from pg_extension where extname = 'vector'`.execute(db);
  return Number(result.rows[0]?.n ?? 0) > 0;
}

/**
 * Proves that pgvector works on this server as similarity search uses it: builds the IVFFlat index by
 * inner product on unit vectors at half precision that serves both orders (search/postgres-vector-index.ts:
 * the same expression and operator class) over 200 vectors of 16 dimensions in a temporary table, queries
 * it through the index in both orders and checks that a stored vector is its own nearest neighbour and
 * that the farthest one is the exact farthest; the table goes with the transaction.
 * Returns null when it works, else what failed.
 */
export async function probePgvector(db: Kysely<DB>): Promise<string | null> {
  const { opclass, operator } = FAR_OPS.ip;
  const unit = halfvecExpression("v", 16);
  const query = `(select ${unit} from tessera_pgvector_probe where id = 42)`;
  const order = (direction: "asc" | "desc") => `order by ${unit} ${operator} ${query} ${direction} limit 1`;
  try {
    const found = await db.transaction().execute(async (trx) => {
      await sql`create temporary table tessera_pgvector_probe (id int, v vector(16)) on commit drop`.execute(trx);
      await sql`insert into tessera_pgvector_probe select i, array(select ((abs(sin(i * 12.9898 + d * 78.233)) * 43758.5453)::numeric % 1 - 0.5)::real from generate_series(1, 16) d)::vector(16) from generate_series(1, 200) i`.execute(
        trx,
      );
      await sql
        .raw(`create index tessera_pgvector_probe_ivf on tessera_pgvector_probe using ivfflat (${unit} ${opclass}) with (lists = 4)`)
        .execute(trx);
      // Every list probed: the index's answer is then the exact one, which the check compares with.
      await sql`set local ivfflat.probes = 4`.execute(trx);
      await sql`set local enable_seqscan = off`.execute(trx);
      const answers: number[] = [];
      for (const direction of ["asc", "desc"] as const) {
        const plan = await sql
          .raw<Record<string, string>>(`explain select id from tessera_pgvector_probe ${order(direction)}`)
          .execute(trx);
        if (direction === "asc" && !plan.rows.some((row) => Object.values(row).join(" ").includes("tessera_pgvector_probe_ivf")))
          return "not served by the IVFFlat index";
        const row = await sql.raw<{ id: number }>(`select id from tessera_pgvector_probe ${order(direction)}`).execute(trx);
        answers.push(Number(row.rows[0]?.id));
      }
      await sql`set local enable_seqscan = on`.execute(trx);
      await sql`set local enable_indexscan = off`.execute(trx);
      await sql`set local enable_bitmapscan = off`.execute(trx);
      const exact = await sql.raw<{ id: number }>(`select id from tessera_pgvector_probe ${order("desc")}`).execute(trx);
      return { nearest: answers[0], farthest: answers[1], exactFarthest: Number(exact.rows[0]?.id) };
    });
    if (typeof found === "string") return `a query was ${found}`;
    if (found.nearest !== 42) return `the nearest neighbour of a stored vector is record ${String(found.nearest)} instead of itself`;
    if (found.farthest !== found.exactFarthest)
      return `the index's least similar vector is record ${String(found.farthest)} instead of ${String(found.exactFarthest)}`;
    return null;
  } catch (error) {
    if ((error as { code?: unknown }).code === "42501") {
      // A role without the TEMP privilege cannot run the check; similarity will tell if pgvector is broken.
      console.error(
        `PostgreSQL: pgvector not checked at start (${rootMessage(error)}); grant TEMP on the database to Tessera's role to check it`,
      );
      return null;
    }
    return `building or querying an IVFFlat index on halfvec by inner product failed (${error instanceof Error ? error.message : String(error)})`;
  }
}

export interface PostgresStoreOptions {
  poolSize?: number | undefined;
  /** How long to wait for an unreachable PostgreSQL at start (restarting, failing over) before giving up (default 30 s). */
  startTimeoutMs?: number | undefined;
}

/**
 * The pool: a connection that drops (PostgreSQL restarted, failed over, a backend killed) never
 * ends the process. node-postgres emits `error` on a client whose connection died; pg-pool listens
 * only while the client is idle, so a client checked out by a query or a transaction would emit it
 * with nobody listening, which ends the process (`Unhandled 'error' event`). Every client gets a
 * listener of its own here; the query it was running fails (the request answers 503,
 * http/errors.ts), and the pool drops the dead client when it comes back and opens new ones for the
 * next queries. Connecting gives up after 5 s (503) instead of waiting forever.
 */
export function createPool(databaseUrl: string, max: number, options: { connectTimeoutMs?: number } = {}): pg.Pool {
  const connectionTimeoutMillis = options.connectTimeoutMs ?? 5000;
  const pool = new pg.Pool({ connectionString: databaseUrl, max, types: ROW_TYPES, connectionTimeoutMillis, keepAlive: true });
  const report = backgroundErrorLogger("PostgreSQL pool (a connection was lost; new queries reconnect)");
  /** When a connection last died or could not be opened: a wait for a free connection near then is an outage, not a busy pool. */
  let troubleAt = -Infinity;
  const lost = (error: unknown) => {
    troubleAt = Date.now();
    report(error);
  };
  pool.on("error", lost); // an idle client's connection died
  pool.on("connect", (client) => {
    client.on("error", lost);
  });
  // pg-pool answers "timeout exceeded when trying to connect" when a request waited the whole
  // connectionTimeoutMillis for a free connection. With every connection in use and none lost or
  // refused lately, that is an overloaded server (503 "busy", http/errors.ts), not a database outage.
  const classify = (error: Error): Error => {
    if (/^timeout exceeded when trying to connect/.test(error.message)) {
      if (pool.totalCount >= max && Date.now() - troubleAt > 2 * connectionTimeoutMillis) Object.assign(error, { code: POOL_BUSY_CODE });
    } else if (isDatabaseUnavailable(error)) troubleAt = Date.now();
    return error;
  };
  type Callback = (error: Error | undefined, ...rest: unknown[]) => void;
  const connect = pool.connect.bind(pool) as (callback?: Callback) => Promise<pg.PoolClient> | undefined;
  pool.connect = ((callback?: Callback) => {
    if (callback) return connect((error, ...rest) => callback(error && classify(error), ...rest));
    return connect()!.catch((error: Error) => {
      throw classify(error);
    });
  }) as typeof pool.connect;
  return pool;
}

/** Opens a PostgreSQL store (`DATABASE_URL`), migrates it and checks vector support; waits for a PostgreSQL that is not reachable yet. */
export async function openPostgresStore(databaseUrl: string, options: PostgresStoreOptions = {}): Promise<Store> {
  const pool = createPool(databaseUrl, options.poolSize ?? 10);
  const db = postgresKysely(pool);
  try {
    const { vectorSearch, vectorSearchOff } = await untilReachable(
      () => preparePostgres(db),
      databaseUrl,
      options.startTimeoutMs ?? 30_000,
    );
    if (vectorSearchOff) console.error(vectorSearchOff);
    const statistics = new PlannerStatistics(db, {}, (error) => {
      console.error("PostgreSQL: ANALYZE after an import failed", error);
    });
    onRecordsWritten(db, (written) => statistics.noteWrite(written.created));
    return {
      db,
      dialect: "postgres",
      sqlite: null,
      databaseUrl,
      vectorSearch,
      close: async () => {
        statistics.stop();
        await db.destroy();
      },
    };
  } catch (error) {
    await db.destroy();
    throw error;
  }
}

/** Runs `start` again while PostgreSQL is unreachable, for up to `timeoutMs`; then fails with a clear message. */
async function untilReachable<T>(start: () => Promise<T>, databaseUrl: string, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  const where = (() => {
    try {
      const u = new URL(databaseUrl);
      return `${u.hostname}:${u.port || 5432}${u.pathname}`;
    } catch {
      return "DATABASE_URL";
    }
  })();
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (error) {
      if (!isDatabaseUnavailable(error)) throw error;
      const reason = rootMessage(error);
      if (Date.now() >= deadline) {
        throw new StoreStartupError(
          `Tessera cannot start: PostgreSQL at ${where} is not reachable (${reason}); gave up after ${Math.round(timeoutMs / 1000)} s. Check DATABASE_URL and that the database server is running.`,
        );
      }
      if (attempt === 1)
        console.error(`PostgreSQL at ${where} is not reachable yet (${reason}): waiting for it (up to ${Math.round(timeoutMs / 1000)} s)`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

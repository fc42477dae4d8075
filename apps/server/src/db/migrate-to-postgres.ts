import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { sql, type Kysely } from "kysely";
import type SQLite from "better-sqlite3";
import { openEmbeddedStore, type Store } from "./database.js";
import { openPostgresStore } from "./postgres.js";
import { PostgresSearch } from "../search/postgres-search.js";

/**
 * `tessera migrate-to-postgres --from ./data --to postgres://...`: copies every table of the embedded
 * store into an empty PostgreSQL database (one transaction, foreign-key order, insertion order and
 * identities kept), then verifies the copy table by table with row counts and order-independent
 * SHA-256 checksums over canonical row values (JSON compared by value, vectors by their float32 bytes).
 */

/** Copy order: parents before children. Tables the code does not know yet are copied after these. */
const TABLE_ORDER = [
  "server_settings",
  "users",
  "workspaces",
  "workspaces_users",
  "datasets",
  "fields",
  "questions",
  "metadata_properties",
  "vectors_settings",
  "records",
  "responses",
  "suggestions",
  "record_vectors",
  "oauth_identities",
  "oauth_states",
  "jobs",
];
/**
 * Maintained by triggers (search index) or by the migrator itself; and file uploads (their bytes are
 * on the embedded store's disk, not in a table: an upload not imported yet is uploaded again).
 */
const SKIPPED =
  /^(records_fts.*|record_metadata|search_index_state|dataset_record_counts|search_index_versions|records_status_changes|record_vectors_knn_.*|kysely_migration.*|sqlite_.*|uploads|upload_failures|dataset_answer_versions|suggestion_versions)$/;
const CHUNK = 500;

export interface TableReport {
  table: string;
  rows: number;
  checksum: string;
  targetRows: number;
  targetChecksum: string;
  ok: boolean;
}
export interface MigrationReport {
  tables: TableReport[];
  ok: boolean;
}

export class MigrationError extends Error {
  override name = "MigrationError";
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tables are copied generically by name
type AnyDb = Kysely<any>;

function sourceTables(sqlite: SQLite.Database): string[] {
  const names = (sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[])
    .map((r) => r.name)
    .filter((n) => !SKIPPED.test(n));
  const known = TABLE_ORDER.filter((t) => names.includes(t));
  return [...known, ...names.filter((n) => !TABLE_ORDER.includes(n)).sort()];
}

const columnsOf = (sqlite: SQLite.Database, table: string): string[] =>
  (sqlite.prepare(`SELECT name FROM pragma_table_info(?)`).all(table) as { name: string }[]).map((r) => r.name);

async function targetColumns(db: AnyDb, table: string): Promise<Map<string, { type: string; identity: boolean }>> {
  const rows = await sql<{ column_name: string; data_type: string; is_identity: string }>`
    select column_name, data_type, is_identity from information_schema.columns where table_schema = current_schema() and table_name = ${table}`.execute(
    db,
  );
  return new Map(rows.rows.map((r) => [r.column_name, { type: r.data_type, identity: r.is_identity === "YES" }]));
}

/** Canonical JSON: object keys sorted, so jsonb's key order does not matter. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object")
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  return JSON.stringify(value);
}

function canonicalValue(value: unknown, json: boolean): string {
  if (value === null || value === undefined) return "\u2205";
  if (value instanceof Uint8Array) return `x${Buffer.from(value).toString("hex")}`;
  if (json && typeof value === "string") {
    try {
      return `j${canonicalJson(JSON.parse(value))}`;
    } catch {
      return `s${value}`;
    }
  }
  return `${typeof value === "number" ? "n" : "s"}${String(value)}`;
}

/** Order-independent checksum of rows over the given columns: SHA-256 of the sorted row hashes. */
class TableChecksum {
  private readonly hashes: string[] = [];
  constructor(
    private readonly columns: string[],
    private readonly jsonColumns: Set<string>,
  ) {}
  add(row: Record<string, unknown>): void {
    const text = this.columns.map((c) => canonicalValue(row[c], this.jsonColumns.has(c))).join("\u241f");
    this.hashes.push(createHash("sha256").update(text).digest("hex"));
  }
  get rows(): number {
    return this.hashes.length;
  }
  digest(): string {
    return createHash("sha256").update(this.hashes.sort().join("\n")).digest("hex");
  }
}

async function assertEmpty(db: AnyDb, tables: string[]): Promise<void> {
  for (const table of tables) {
    const { n } = (await sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`.execute(db)).rows[0]!;
    if (Number(n) > 0)
      throw new MigrationError(`The target database is not empty (table ${table} has ${n} rows). Migrate into a new, empty database.`);
  }
}

/** Copies the embedded store's tables into the (migrated, empty) PostgreSQL store and verifies them. */
export async function copyToPostgres(source: Store, target: Store, log: (line: string) => void = () => {}): Promise<MigrationReport> {
  const sqlite = source.sqlite;
  if (!sqlite) throw new MigrationError("The source must be the embedded SQLite store");
  if (target.dialect !== "postgres") throw new MigrationError("The target must be a PostgreSQL database");
  const tables = sourceTables(sqlite);
  const db = target.db as AnyDb;
  const targetCols = new Map<string, Map<string, { type: string; identity: boolean }>>();
  for (const table of tables) {
    const cols = await targetColumns(db, table);
    if (cols.size === 0) throw new MigrationError(`The target database has no table ${table}: is it migrated to the same version?`);
    targetCols.set(table, cols);
  }
  await assertEmpty(db, tables);
  const vectorSettings = sqlite.prepare("SELECT count(*) AS n FROM vectors_settings").get() as { n: number };
  if (vectorSettings.n > 0 && !target.vectorSearch) {
    throw new MigrationError(
      `The source has ${vectorSettings.n} vector setting(s) but the target database has no pgvector extension: install it and run CREATE EXTENSION vector first (docs/deployment.md).`,
    );
  }

  await db.transaction().execute(async (trx) => {
    for (const table of tables) {
      const cols = targetCols.get(table)!;
      const columns = columnsOf(sqlite, table).filter((c) => cols.has(c));
      const keepRowid = cols.has("rowid") && !columns.includes("rowid");
      const withoutRowid = /without\s+rowid/i.test(
        (sqlite.prepare("SELECT sql FROM sqlite_master WHERE name = ?").get(table) as { sql: string }).sql,
      );
      const list = columns.map((c) => `"${c}"`).join(", ");
      // Keyset paging on rowid (insertion order); WITHOUT ROWID tables page by offset in key order.
      const select = withoutRowid
        ? sqlite.prepare(`SELECT ${list} FROM "${table}" ORDER BY 1 LIMIT ${CHUNK} OFFSET ?`)
        : sqlite.prepare(`SELECT rowid AS "__rowid", ${list} FROM "${table}" WHERE rowid > ? ORDER BY rowid LIMIT ${CHUNK}`);
      let last = Number.MIN_SAFE_INTEGER;
      let copied = 0;
      for (;;) {
        const rows = select.all(withoutRowid ? copied : last) as Record<string, unknown>[];
        if (rows.length === 0) break;
        last = Number(rows[rows.length - 1]!.__rowid);
        const values = rows.map((row) => {
          const out: Record<string, unknown> = {};
          for (const c of columns) out[c] = row[c];
          if (keepRowid && !withoutRowid) out.rowid = row.__rowid;
          return out;
        });
        await trx.insertInto(table).values(values).execute();
        copied += rows.length;
      }
      // Identities continue after the copied values.
      for (const [column, info] of cols) {
        if (!info.identity) continue;
        await sql`select setval(pg_get_serial_sequence(${table}, ${column}), coalesce((select max(${sql.ref(column)}) from ${sql.table(table)}), 0) + 1, false)`.execute(
          trx,
        );
      }
      log(`  copied ${table}: ${copied} rows`);
    }
  });

  const report = await verifyCopy(source, target);
  if (target.vectorSearch) {
    const search = new PostgresSearch(target.db, { vectorSearch: true });
    for (const v of await target.db.selectFrom("vectors_settings").select(["id", "dimensions"]).execute())
      await search.ensureVectorIndex(v.id, v.dimensions);
  }
  return report;
}

/** Row counts and checksums of every copied table on both sides. */
export async function verifyCopy(source: Store, target: Store): Promise<MigrationReport> {
  const sqlite = source.sqlite!;
  const db = target.db as AnyDb;
  const tables: TableReport[] = [];
  for (const table of sourceTables(sqlite)) {
    const cols = await targetColumns(db, table);
    const columns = columnsOf(sqlite, table).filter((c) => cols.has(c));
    const jsonColumns = new Set(columns.filter((c) => cols.get(c)!.type === "jsonb" || cols.get(c)!.type === "json"));
    const left = new TableChecksum(columns, jsonColumns);
    for (const row of sqlite.prepare(`SELECT ${columns.map((c) => `"${c}"`).join(", ")} FROM "${table}"`).iterate() as IterableIterator<
      Record<string, unknown>
    >)
      left.add(row);
    const right = new TableChecksum(columns, jsonColumns);
    for (let offset = 0; ; offset += 5000) {
      const page = await db
        .selectFrom(table)
        .select(columns)
        .orderBy(sql`ctid`)
        .limit(5000)
        .offset(offset)
        .execute();
      for (const row of page) right.add(row as Record<string, unknown>);
      if (page.length < 5000) break;
    }
    const checksum = left.digest();
    const targetChecksum = right.digest();
    tables.push({
      table,
      rows: left.rows,
      checksum,
      targetRows: right.rows,
      targetChecksum,
      ok: left.rows === right.rows && checksum === targetChecksum,
    });
  }
  return { tables, ok: tables.every((t) => t.ok) };
}

function option(argv: string[], name: string): string | undefined {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
}

/** The CLI: prints progress and the verification table; exit code 0 only when every table matches. */
export async function runMigrateToPostgres(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
  print: (line: string) => void = console.log,
): Promise<number> {
  const from = resolve(option(argv, "from") ?? env.TESSERA_DATA_DIR ?? "./data");
  const to = option(argv, "to") ?? env.DATABASE_URL ?? "";
  if (!/^postgres(ql)?:\/\//.test(to)) {
    print("usage: node apps/server/dist/main.js migrate-to-postgres --from ./data --to postgres://user:password@host:5432/database");
    return 2;
  }
  if (!existsSync(join(from, "tessera.db"))) {
    print(`No embedded database at ${join(from, "tessera.db")}`);
    return 2;
  }
  print(`Copying ${join(from, "tessera.db")} to ${to.replace(/\/\/[^@/]*@/, "//***@")}`);
  let source: Store | null = null;
  let target: Store | null = null;
  try {
    source = await openEmbeddedStore(from);
    target = await openPostgresStore(to, { poolSize: 2 });
    const report = await copyToPostgres(source, target, print);
    print("\n  table                  rows (source / target)   checksum");
    for (const t of report.tables) {
      print(
        `  ${t.table.padEnd(22)} ${String(t.rows).padStart(8)} / ${String(t.targetRows).padEnd(8)}        ${t.checksum.slice(0, 16)} ${t.ok ? "ok" : `MISMATCH (target ${t.targetChecksum.slice(0, 16)})`}`,
      );
    }
    print(
      report.ok
        ? "\nEvery table matches. Start Tessera with DATABASE_URL set to the target."
        : "\nThe copy does not match the source: do not use the target.",
    );
    return report.ok ? 0 : 1;
  } catch (error) {
    print(`migrate-to-postgres failed: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  } finally {
    await source?.close();
    await target?.close();
  }
}

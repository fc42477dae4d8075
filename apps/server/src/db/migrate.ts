import type { Kysely } from "kysely";
import { Migrator } from "kysely/migration";
import type { DB } from "./schema.js";
import { migrationProvider } from "./migrations/index.js";
import { postgresMigrationProvider } from "./migrations/postgres/index.js";
import { dialectOf } from "./dialect.js";

/** Applies the pending migrations of the store's dialect. */
export async function migrate(db: Kysely<DB>): Promise<void> {
  const provider = dialectOf(db) === "postgres" ? postgresMigrationProvider : migrationProvider;
  const migrator = new Migrator({ db, provider });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === "Error");
  if (error || failed) {
    throw new Error(`Database migration ${failed?.migrationName ?? ""} failed: ${String(error)}`, { cause: error });
  }
}

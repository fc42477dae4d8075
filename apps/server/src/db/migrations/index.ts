import type { Migration, MigrationProvider } from "kysely/migration";
import * as m0001 from "./0001-initial.js";

/**
 * Versioned migrations, applied in key order by Kysely's Migrator. Add a new file per change
 * (never edit an applied one) and list it here.
 */
export const migrations: Record<string, Migration> = {
  "0001-initial": m0001,
};

export const migrationProvider: MigrationProvider = { getMigrations: async () => migrations };

import SQLite from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { Migrator } from "kysely/migration";
import { describe, expect, it } from "vitest";
import { migrationProvider } from "./index.js";

describe("migration 0016 (records_fts in a file of its own)", () => {
  it("drops the main file's FTS table, mark and triggers; deletes and fields updates are logged for the indexer", async () => {
    const sqlite = new SQLite(":memory:");
    sqlite.pragma("foreign_keys = OFF"); // records of a dataset row the test does not need
    const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: sqlite }) });
    const migrator = new Migrator({ db, provider: migrationProvider });
    expect((await migrator.migrateTo("0015-record-status-changes")).error).toBeUndefined();
    const insert = sqlite.prepare(
      "INSERT INTO records (seq, id, dataset_id, fields, status, inserted_at, updated_at) VALUES (?, ?, 'ds', ?, 'pending', 't', 't')",
    );
    insert.run(1, "r1", JSON.stringify({ text: "the quick fox" }));
    insert.run(2, "r2", JSON.stringify({ text: "slow dog" }));
    expect((await migrator.migrateToLatest()).error).toBeUndefined();

    expect(sqlite.prepare("SELECT name FROM sqlite_master WHERE name LIKE 'records_fts%' ORDER BY name").pluck().all()).toEqual([
      "records_fts_changes",
      "records_fts_changes_after_delete",
      "records_fts_changes_after_update",
      "records_fts_content",
    ]);
    expect(sqlite.prepare("SELECT count(*) FROM records_fts_content").pluck().get()).toBe(0); // left behind by FTS5, emptied
    expect(sqlite.prepare("SELECT count(*) FROM search_index_state WHERE name = 'records_fts'").pluck().get()).toBe(0);
    sqlite.prepare("UPDATE records SET fields = ? WHERE seq = 2").run(JSON.stringify({ text: "quick brown" }));
    sqlite.prepare("UPDATE records SET fields = fields, status = 'completed' WHERE seq = 2").run(); // same fields: nothing to re-index
    sqlite.prepare("DELETE FROM records WHERE seq = 1").run();
    expect(sqlite.prepare("SELECT id, seq FROM records_fts_changes ORDER BY id").all()).toEqual([
      { id: 1, seq: 2 },
      { id: 2, seq: 1 },
    ]);
    await db.destroy();
  });
});

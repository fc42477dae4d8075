import SQLite from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { Migrator } from "kysely/migration";
import { describe, expect, it } from "vitest";
import { migrationProvider } from "./index.js";

describe("migration 0010 (contentless records_fts)", () => {
  it("rebuilds the FTS rows of an existing database from the records; deletes and field updates stay exact", async () => {
    const sqlite = new SQLite(":memory:");
    sqlite.pragma("foreign_keys = OFF"); // records of a dataset row the test does not need
    const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: sqlite }) });
    const migrator = new Migrator({ db, provider: migrationProvider });
    expect((await migrator.migrateTo("0009-record-metadata-index")).error).toBeUndefined();
    // A database written before 0010: two records, their rows in the old (content) table.
    const insert = sqlite.prepare(
      "INSERT INTO records (seq, id, dataset_id, fields, status, inserted_at, updated_at) VALUES (?, ?, 'ds', ?, 'pending', 't', 't')",
    );
    insert.run(1, "r1", JSON.stringify({ text: "the quick fox", n: 3, summary: "a café" }));
    insert.run(2, "r2", JSON.stringify({ summary: "quick", text: "slow dog" }));
    sqlite.exec(
      "INSERT INTO records_fts (rowid, content, field) VALUES (1024, 'the quick fox', 'text'), (1025, 'a café', 'summary'), (2048, 'quick', 'summary'), (2049, 'slow dog', 'text')",
    );
    // Up to the last migration with records_fts in the main file (0016 moves it to a file of its own).
    expect((await migrator.migrateTo("0015-record-status-changes")).error).toBeUndefined();

    const rows = (q: string) =>
      sqlite.prepare("SELECT rowid AS id, field FROM records_fts WHERE records_fts MATCH ? ORDER BY rowid").all(q);
    expect((sqlite.prepare("SELECT sql FROM sqlite_master WHERE name = 'records_fts'").get() as { sql: string }).sql).toContain(
      "content = ''",
    );
    expect(rows("quick")).toEqual([
      { id: 1024, field: "text" },
      { id: 2048, field: "summary" },
    ]);
    expect(rows("cafe")).toEqual([{ id: 1025, field: "summary" }]);
    expect(
      sqlite
        .prepare(
          "SELECT rowid AS id FROM records_fts WHERE records_fts MATCH 'quick' AND rowid BETWEEN 2048 AND 3071 AND field = 'summary'",
        )
        .all(),
    ).toEqual([{ id: 2048 }]);

    sqlite.prepare("UPDATE records SET fields = ? WHERE seq = 2").run(JSON.stringify({ text: "quick brown" }));
    expect(rows("quick")).toEqual([
      { id: 1024, field: "text" },
      { id: 2048, field: "text" },
    ]);
    expect(rows("dog")).toEqual([]);
    sqlite.prepare("DELETE FROM records WHERE seq = 1").run();
    expect(rows("quick")).toEqual([{ id: 2048, field: "text" }]);
    expect(rows("cafe")).toEqual([]);
    await db.destroy();
  });
});

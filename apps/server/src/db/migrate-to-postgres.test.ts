import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openEmbeddedStore, type Store } from "./database.js";
import { copyToPostgres, MigrationError, runMigrateToPostgres, verifyCopy } from "./migrate-to-postgres.js";
import { openPgliteStore, type PgliteStore } from "../testing/pglite-store.js";
import { seedSearchData } from "../search/search-port.suite.js";
import { PostgresSearch } from "../search/postgres-search.js";
import { loadSigningSecret } from "../auth/secrets.js";
import { recordCounts } from "../records/counts.js";

describe("migrate-to-postgres (embedded store -> PostgreSQL on PGlite)", () => {
  let dir: string;
  let source: Store;
  let target: PgliteStore;
  let seeded: Awaited<ReturnType<typeof seedSearchData>>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "tessera-migrate-"));
    source = await openEmbeddedStore(dir);
    await loadSigningSecret(source.db, null);
    seeded = await seedSearchData(source);
    await source.db
      .insertInto("fields")
      .values([
        {
          id: "f-2",
          dataset_id: seeded.ids.ds,
          name: "b",
          title: "B",
          required: 1,
          settings: '{"type":"text","use_markdown":false}',
          inserted_at: "2024-01-01T00:00:00",
          updated_at: "2024-01-01T00:00:00",
        },
        {
          id: "f-1",
          dataset_id: seeded.ids.ds,
          name: "a",
          title: "A",
          required: 0,
          settings: '{"type":"text","use_markdown":true}',
          inserted_at: "2024-01-01T00:00:00",
          updated_at: "2024-01-01T00:00:00",
        },
      ])
      .execute();
    target = await openPgliteStore();
  }, 60_000);
  afterAll(async () => {
    await source?.close();
    await target?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("copies every table, verified by counts and checksums, keeping order, identities, secrets and search", async () => {
    const lines: string[] = [];
    const report = await copyToPostgres(source, target, (l) => lines.push(l));
    expect(report.ok).toBe(true);
    const byTable = Object.fromEntries(report.tables.map((t) => [t.table, t]));
    expect(byTable.records).toMatchObject({ rows: 5, targetRows: 5, ok: true });
    expect(byTable.record_vectors).toMatchObject({ rows: 4, ok: true });
    expect(byTable.server_settings).toMatchObject({ rows: 1, ok: true });
    expect(byTable.fields!.checksum).toBe(byTable.fields!.targetChecksum);
    expect(lines.some((l) => l.includes("copied records: 5 rows"))).toBe(true);

    // The signing secret moved, so existing tokens and API keys keep working.
    expect(await loadSigningSecret(target.db, null)).toBe(await loadSigningSecret(source.db, null));
    // Same-timestamp rows keep their insertion order (rowid).
    const fields = await target.db
      .selectFrom("fields")
      .select("name")
      .orderBy("inserted_at")
      .orderBy((eb) => eb.ref("rowid" as "name"))
      .execute();
    expect(fields.map((f) => f.name)).toEqual(["b", "a"]);
    // Identities continue after the copied values.
    const maxSeq = (
      await target.db
        .selectFrom("records")
        .select((eb) => eb.fn.max("seq").as("m"))
        .executeTakeFirstOrThrow()
    ).m;
    await target.db
      .insertInto("records")
      .values({
        id: "new",
        dataset_id: seeded.ids.ds,
        external_id: "new",
        fields: '{"text":"fresh"}',
        metadata: null,
        status: "pending",
        inserted_at: "2025-01-01T00:00:00",
        updated_at: "2025-01-01T00:00:00",
      })
      .execute();
    const fresh = await target.db.selectFrom("records").select("seq").where("id", "=", "new").executeTakeFirstOrThrow();
    expect(fresh.seq).toBeGreaterThan(Number(maxSeq));
    await target.db.deleteFrom("records").where("id", "=", "new").execute();
    // The record counters (migration 0011) were filled by the target's triggers, not copied on top.
    expect(await recordCounts(target.db, seeded.ids.ds)).toEqual(await recordCounts(source.db, seeded.ids.ds));
    expect(await recordCounts(target.db, seeded.ids.ds)).toMatchObject({ total: 4 });
    // Search works on the copy: the text index was filled by the triggers, vectors are real[].
    const port = new PostgresSearch(target.db, { vectorSearch: true });
    const hits = await port.search({
      datasetId: seeded.ids.ds,
      userId: null,
      text: { q: "quick", field: null },
      vector: null,
      filters: [],
      sort: [],
      offset: 0,
      limit: 10,
    });
    expect(hits.total).toBe(2);
    const similar = await port.search({
      datasetId: seeded.ids.ds,
      userId: null,
      text: null,
      vector: { settingsId: seeded.ids.emb, value: [1, 0, 0], order: "most_similar", excludeRecordId: null },
      filters: [],
      sort: [],
      offset: 0,
      limit: 10,
    });
    expect(similar.hits[0]!.recordId).toBe(seeded.byExt.a);
  });

  it("detects a difference between source and target, and refuses a non-empty target", async () => {
    await target.db.updateTable("records").set({ metadata: '{"genre":"changed"}' }).where("id", "=", seeded.byExt.a!).execute();
    const report = await verifyCopy(source, target);
    expect(report.ok).toBe(false);
    expect(report.tables.filter((t) => !t.ok).map((t) => t.table)).toEqual(["records"]);
    await expect(copyToPostgres(source, target)).rejects.toThrow(MigrationError);
    await expect(copyToPostgres(source, target)).rejects.toThrow(/not empty/);
  });

  it("the command explains its usage and a missing source", async () => {
    const out: string[] = [];
    expect(await runMigrateToPostgres(["--from", dir], {}, (l) => out.push(l))).toBe(2);
    expect(out.join("\n")).toContain("usage: node apps/server/dist/main.js migrate-to-postgres --from ./data --to postgres://");
    expect(await runMigrateToPostgres(["--from", join(dir, "nope"), "--to", "postgres://x@127.0.0.1:1/db"], {}, (l) => out.push(l))).toBe(
      2,
    );
    expect(out.at(-1)).toContain("No embedded database");
  });
});

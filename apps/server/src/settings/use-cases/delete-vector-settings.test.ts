import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recordItems, richDataset, type RichDataset } from "../../records/testing.js";
import { countsSeenDuring } from "../../testing/batched-deletion.js";
import type { TestServer } from "../../testing/test-server.js";
import { datasetWithRecords } from "../../testing/dataset-with-records.js";
import { deleteVectorSettings } from "./delete-vector-settings.js";
import { findVectorSettings } from "./find-vector-settings.js";

/** Deleting vector settings deletes their vectors in batches (other requests run between two) and keeps the records. */
describe("deleting vector settings", () => {
  let server: TestServer;
  let d: RichDataset;
  let ids: string[];
  let otherIds: string[];

  beforeAll(async () => {
    // richDataset's vector settings are named "emb".
    ({ server, d, ids } = await datasetWithRecords(450, { prefix: "vec", extra: (i) => ({ vectors: { emb: [(i % 5) + 1, 1, 2] } }) }));
    const other = await richDataset(server);
    otherIds = await other.f.records(
      other.datasetId,
      recordItems(30, "keep", () => ({ vectors: { [other.vectorName]: [1, 2, 3] } })),
    );
  }, 120_000);
  afterAll(() => server?.stop());

  const vectors = async (recordIds: string[]) =>
    Number(
      (
        await server.ctx.db
          .selectFrom("record_vectors")
          .select((eb) => eb.fn.countAll().as("n"))
          .where("record_id", "in", recordIds)
          .executeTakeFirstOrThrow()
      ).n,
    );

  it("deletes the vectors in batches, then the settings; the records and other datasets' vectors stay", async () => {
    expect(await vectors(ids)).toBe(450);
    const settings = await server.ctx.db
      .selectFrom("vectors_settings")
      .select("id")
      .where("dataset_id", "=", d.datasetId)
      .executeTakeFirstOrThrow();
    const owner = await server.ctx.db.selectFrom("users").selectAll().where("username", "=", "owner").executeTakeFirstOrThrow();
    const { vectorSettings } = await findVectorSettings(server.ctx.db, owner, settings.id, "admin");
    const seen = await countsSeenDuring(
      () => vectors(ids),
      (batches) => deleteVectorSettings(server.ctx.db, vectorSettings, batches),
      40,
    );
    expect([...seen].some((n) => n > 0 && n < 450)).toBe(true);
    expect(await vectors(ids)).toBe(0);
    expect(
      await server.ctx.db.selectFrom("vectors_settings").select("id").where("id", "=", settings.id).executeTakeFirst(),
    ).toBeUndefined();
    expect((await d.f.ok<{ total: number }>("GET", `/datasets/${d.datasetId}/records?limit=1`)).total).toBe(450);
    expect(await vectors(otherIds)).toBe(30);
    // Through the API: another settings with its vectors, deleted whole.
    const more = await d.f.vectorSettings(d.datasetId, { name: "emb2", title: "Emb 2", dimensions: 2 });
    await d.f.ok("PUT", `/datasets/${d.datasetId}/records/bulk`, { items: [{ id: ids[0], vectors: { emb2: [1, 2] } }] }, 200);
    expect(await vectors([ids[0]!])).toBe(1);
    await d.f.ok("DELETE", `/vectors-settings/${more.id}`);
    expect(await vectors([ids[0]!])).toBe(0);
  });
});

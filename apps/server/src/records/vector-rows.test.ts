import { describe, expect, it } from "vitest";
import { serverForFile } from "../testing/fixtures.js";
import { float32BlobOfArraySend, vectorRows } from "./vector-rows.js";

const fx = serverForFile();

type Page = { items: { id: string; vectors?: Record<string, number[]> }[] };

describe("a page's vectors (read as bytes on PostgreSQL)", () => {
  it("gives every vector back exactly as sent (float32 values, others, extremes), missing vectors as absent", async () => {
    const d = await fx.readyDataset();
    const emb = await fx.vectorSettings(d.datasetId, { dimensions: 4 });
    const two = await fx.vectorSettings(d.datasetId, { dimensions: 3 });
    const sent = [
      { [emb.name]: [0.1, -0.2, 0.3, 1e-8], [two.name]: [1, 2, 3] },
      { [emb.name]: [Math.fround(0.1), Math.fround(-1 / 3), 0.5, Math.fround(3.4e38)] },
      { [two.name]: [1.5e-45, -1.17549435e-38, 123456.789] },
      {},
      { [emb.name]: [0, 0, 0, 0] },
    ];
    const ids = await fx.records(
      d.datasetId,
      sent.map((vectors, i) => ({ external_id: `v${i}`, fields: { [d.fieldName]: `r ${i}` }, vectors })),
    );
    const page = await fx.ok<Page>("GET", `/datasets/${d.datasetId}/records?offset=0&limit=10&include=vectors`);
    expect(page.items.map((r) => r.id)).toEqual(ids);
    page.items.forEach((r, i) => expect(r.vectors).toEqual(sent[i]));
    // The blobs equal the plain read's (the store plugin's `real[]` text on PostgreSQL), for a subset of records and settings.
    const db = fx.server.ctx.db;
    const plain = await db
      .selectFrom("record_vectors")
      .select(["record_id", "vector_settings_id", "vector", "exact"])
      .where("record_id", "in", ids)
      .execute();
    const key = (r: { record_id: string; vector_settings_id: string }) => `${r.record_id}/${r.vector_settings_id}`;
    const byKey = (rows: { record_id: string; vector_settings_id: string; vector: Uint8Array; exact: string | null }[]) =>
      new Map(rows.map((r) => [key(r), { vector: Buffer.from(r.vector).toString("hex"), exact: r.exact }]));
    expect(byKey(await vectorRows(db, ids, [emb.id, two.id]))).toEqual(byKey(plain));
    expect((await vectorRows(db, [ids[0]!, ids[3]!], [two.id])).map(key)).toEqual([`${ids[0]}/${two.id}`]);
  }, 60_000);

  it("decodes PostgreSQL's binary array form, and refuses what is not a one-dimensional real[] without nulls", () => {
    const values = [1.5, -0, 3.4028234663852886e38, -1e-45];
    const sent = Buffer.alloc(20 + 8 * values.length);
    sent.writeInt32BE(1, 0);
    sent.writeInt32BE(0, 4);
    sent.writeInt32BE(700, 8);
    sent.writeInt32BE(values.length, 12);
    sent.writeInt32BE(1, 16);
    values.forEach((v, i) => {
      sent.writeInt32BE(4, 20 + 8 * i);
      sent.writeFloatBE(v, 24 + 8 * i);
    });
    // Inside a larger buffer (node-postgres may hand out a view at an offset).
    const whole = Buffer.concat([Buffer.from([9, 9, 9]), sent]);
    const inside = new Uint8Array(whole.buffer, whole.byteOffset + 3, sent.length);
    const blob = float32BlobOfArraySend(inside);
    const back = Array.from(new Float32Array(Uint8Array.from(blob).buffer));
    expect(back).toEqual(values.map(Math.fround));
    expect(Object.is(back[1], -0)).toBe(true);
    expect(float32BlobOfArraySend(Buffer.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 188])).length).toBe(0);
    const withNull = Buffer.from(sent);
    withNull.writeInt32BE(1, 4);
    expect(() => float32BlobOfArraySend(withNull)).toThrow(/without nulls/);
    const notFloat4 = Buffer.from(sent);
    notFloat4.writeInt32BE(8, 28);
    expect(() => float32BlobOfArraySend(notFloat4)).toThrow(/float4/);
  });
});

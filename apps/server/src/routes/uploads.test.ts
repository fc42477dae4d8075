import { existsSync } from "node:fs";
import { join } from "node:path";
import { parse as parseCsv } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import { isPostgres } from "../db/dialect.js";
import { FORBIDDEN, serverForFile, type Json } from "../testing/fixtures.js";
import { UploadStore } from "../transfer/import/upload-store.js";

const fx = serverForFile({ TESSERA_UPLOAD_MAX_BYTES: "2000000" });

interface Preview {
  id: string;
  status: string;
  columns: Array<{ name: string; feature: Json; hint: string | null }>;
  preview: Json[];
}
interface State {
  id: string;
  status: string;
  rows_stored: number;
  rows_failed: number;
  rows_done: number;
  error: string | null;
  progress: number;
}

const upload = async (filename: string, content: string | Buffer, headers = fx.owner) => {
  const res = await fetch(`${fx.server.url}/api/v1/uploads?filename=${encodeURIComponent(filename)}`, {
    method: "POST",
    headers: { ...headers, "content-type": "application/octet-stream" },
    body: content,
  });
  return { status: res.status, body: (await res.json()) as Preview & { detail?: unknown } };
};
const settle = async (id: string): Promise<State> => {
  for (let i = 0; i < 400; i++) {
    const state = await fx.ok<State>("GET", `/uploads/${id}`);
    if (["finished", "failed", "cancelled"].includes(state.status)) return state;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error("the import did not settle");
};
const records = async (datasetId: string) =>
  (
    await fx.ok<{ items: Array<Json & { external_id: string; fields: Json; metadata: Json; suggestions: Json[]; responses: Json[] }> }>(
      "GET",
      `/datasets/${datasetId}/records?include=suggestions&include=responses&limit=1000`,
    )
  ).items;

/** Whether the upload's bytes are still kept anywhere: this server's disk, or the database's chunks (PostgreSQL). */
const bytesKept = async (id: string) => {
  const db = fx.server.ctx.db;
  const onDisk = existsSync(join(fx.server.ctx.config.dataDir, "uploads", id));
  if (!isPostgres(db)) return onDisk;
  const chunks = await db.selectFrom("upload_chunks").select("seq").where("upload_id", "=", id).execute();
  return onDisk || chunks.length > 0;
};

async function dataset() {
  const ws = await fx.workspace();
  const ds = await fx.dataset(ws.id);
  await fx.field(ds.id, { name: "text", title: "Text" });
  await fx.question(ds.id, { name: "label", title: "Label" });
  await fx.metadataProperty(ds.id, { name: "n", title: "N", settings: { type: "integer" } });
  await fx.metadataProperty(ds.id, { name: "genre", title: "Genre" });
  await fx.publish(ds.id);
  return { workspaceId: ws.id, datasetId: ds.id };
}

describe("POST /uploads: a file streamed to disk, previewed with typed columns", () => {
  it("types CSV columns by the Hub import's rules", async () => {
    const csv =
      'id,text,n,score,picture,tags\n1,Hello,3,0.5,https://x.test/a.png,"[""a"",""b""]"\n2,"World, again",4,1.5,https://x.test/b.jpg,"[""b""]"\n';
    const res = await upload("data.csv", csv);
    expect(res.status).toBe(201);
    expect(res.body.status).toBe("uploaded");
    expect(Object.fromEntries(res.body.columns.map((c) => [c.name, c.feature]))).toEqual({
      id: { _type: "Value", dtype: "int64" },
      text: { _type: "Value", dtype: "string" },
      n: { _type: "Value", dtype: "int64" },
      score: { _type: "Value", dtype: "float64" },
      picture: { _type: "Image" },
      tags: { _type: "Sequence", feature: { _type: "ClassLabel", names: ["a", "b"] } },
    });
    expect(res.body.preview[1]).toMatchObject({ text: "World, again" });
  });

  it("names the row and column of a bad file and keeps nothing", async () => {
    const ragged = await upload("r.csv", "a,b\n1,2\n3,4,5\n");
    expect(ragged.status).toBe(422);
    expect(JSON.stringify(ragged.body.detail)).toContain("Row 2");
    const badJson = await upload("r.jsonl", '{"a":1}\n{"a":2}\n{oops}\n');
    expect(badJson.status).toBe(422);
    expect(JSON.stringify(badJson.body.detail)).toContain("Row 3");
    const latin1 = await upload("r.csv", Buffer.concat([Buffer.from("a,b\n1,caf"), Buffer.from([0xe9]), Buffer.from("\n")]));
    expect(latin1.status).toBe(422);
    expect(JSON.stringify(latin1.body.detail)).toMatch(/Row 1, column `b`: the text is not valid UTF-8/);
    expect((await upload("r.xlsx", "x")).status).toBe(422);
    expect((await upload("big.jsonl", `${'{"a":"x"}\n'.repeat(250_000)}`)).status).toBe(413);
    const bomb = await upload("r.parquet", "PAR1 not really");
    expect(bomb.status).toBe(422);
    // No body and no content type at all (the stream parser never runs): an empty file, not a 500.
    const bare = await fetch(`${fx.server.url}/api/v1/uploads?filename=empty.jsonl`, { method: "POST", headers: fx.owner });
    expect(bare.status).toBe(422);
    expect(await bare.json()).toEqual({ detail: "The file has no rows" });
  });

  it("reads a JSON array as a stream: the first rows preview even when the array breaks further on", async () => {
    const items = Array.from({ length: 3000 }, (_, i) => JSON.stringify({ key: `k${i + 1}`, body: `Row ${i + 1}`, n: i }));
    // parsed whole, this file would be refused at once; streamed, the preview reads its first 20 items
    const broken = await upload("big.json", `[${items.join(",")},{"key": oops}]`);
    expect(broken.status).toBe(201);
    expect(broken.body.preview).toHaveLength(20);
    expect(broken.body.preview[19]).toEqual({ key: "k20", body: "Row 20", n: 19 });
    const { datasetId } = await dataset();
    const mapping = { fields: [{ source: "body", target: "text" }], metadata: [{ source: "n", target: "n" }], external_id: "key" };
    await fx.ok("POST", `/uploads/${broken.body.id}/import`, { dataset_id: datasetId, mapping }, 202);
    const state = await settle(broken.body.id);
    expect(state).toMatchObject({ status: "failed", rows_stored: 3000 });
    expect(state.error).toMatch(/^Row 3001: not valid JSON/);
    expect(await bytesKept(broken.body.id)).toBe(false);
    const notArray = await upload("o.json", '{"a": 1}');
    expect(notArray.status).toBe(422);
    expect(JSON.stringify(notArray.body.detail)).toContain("a JSON file must hold an array of objects");
    const notObjects = await upload("n.json", "[1, 2]");
    expect(JSON.stringify(notObjects.body.detail)).toContain("Row 1: each item must be a JSON object");
  });

  it("is for owners and admins", async () => {
    const { workspaceId } = await dataset();
    const annotator = await fx.member(workspaceId, "annotator");
    const res = await upload("a.csv", "a\n1\n", annotator.headers);
    expect(res).toEqual({ status: 403, body: FORBIDDEN });
    const admin = await fx.member(workspaceId, "admin");
    expect((await upload("a.csv", "a\n1\n", admin.headers)).status).toBe(201);
  });
});

describe("POST /uploads/{id}/import: a background job", () => {
  it("imports rows by the mapping and updates records of a known external id instead of duplicating them", async () => {
    const { datasetId } = await dataset();
    const mapping = {
      fields: [{ source: "body", target: "text" }],
      metadata: [
        { source: "count", target: "n" },
        { source: "kind", target: "genre" },
      ],
      suggestions: [{ source: "guess", target: "label" }],
      external_id: "key",
    };
    const first = await upload(
      "a.tsv",
      "key\tbody\tcount\tkind\tguess\tguess.score\nk1\tOne\t1\tnews\tyes\t0.9\nk2\tTwo\t2\tblog\tno\t0.1\n",
    );
    const queued = await fx.request<State>("POST", `/uploads/${first.body.id}/import`, { body: { dataset_id: datasetId, mapping } });
    expect(queued.status).toBe(202);
    expect(await settle(first.body.id)).toMatchObject({ status: "finished", rows_stored: 2, rows_failed: 0, progress: 1 });
    expect(await bytesKept(first.body.id)).toBe(false); // removed once imported; the state stays readable
    const again = await upload(
      "b.jsonl",
      '{"key":"k2","body":"Two, edited","count":22,"kind":"blog"}\n{"key":"k3","body":"Three","count":3,"kind":"news"}\n',
    );
    await fx.ok("POST", `/uploads/${again.body.id}/import`, { dataset_id: datasetId, mapping }, 202);
    expect(await settle(again.body.id)).toMatchObject({ status: "finished", rows_stored: 2 });
    const stored = await records(datasetId);
    // one record per external id, updated by the records module's upsert
    expect(stored.map((r) => [r.external_id, r.fields.text, r.metadata.n])).toEqual([
      ["k1", "One", 1],
      ["k2", "Two, edited", 22],
      ["k3", "Three", 3],
    ]);
    expect(stored[0]!.suggestions).toMatchObject([{ value: "yes", score: 0.9 }]);
    expect((await fx.request("POST", `/uploads/${first.body.id}/import`, { body: { dataset_id: datasetId, mapping } })).status).toBe(422);
  });

  it("stores nothing from a batch with a bad row, and lists the rows that failed", async () => {
    const { datasetId } = await dataset();
    const rows = Array.from({ length: 1200 }, (_, i) => `r${i + 1},Text ${i + 1},${i === 699 ? "many" : i}`);
    const file = await upload("p.csv", `key,body,count\n${rows.join("\n")}\n`);
    await fx.ok(
      "POST",
      `/uploads/${file.body.id}/import`,
      {
        dataset_id: datasetId,
        mapping: { fields: [{ source: "body", target: "text" }], metadata: [{ source: "count", target: "n" }], external_id: "key" },
      },
      202,
    );
    expect(await settle(file.body.id)).toMatchObject({ status: "finished", rows_stored: 700, rows_failed: 500, rows_done: 1200 });
    const stored = await records(datasetId);
    expect(stored).toHaveLength(700);
    expect(stored.some((r) => r.external_id === "r600")).toBe(false);
    const res = await fetch(`${fx.server.url}/api/v1/uploads/${file.body.id}/failures`, { headers: fx.owner });
    expect(res.headers.get("content-type")).toContain("text/csv");
    const failures = parseCsv(await res.text(), { columns: true }) as Array<{ row: string; column: string; message: string }>;
    expect(failures).toHaveLength(500);
    expect(failures.find((f) => f.row === "700")).toEqual({
      row: "700",
      column: "count",
      message: "Row 700, column `count`: `many` is not an integer",
    });
    expect(failures[0]!.message).toBe("Not stored: rows 501-1000 were imported together and row 700 failed");
  });

  it("refuses a mapping onto a draft dataset, an unknown upload and a cancelled one", async () => {
    const ws = await fx.workspace();
    const draft = await fx.dataset(ws.id);
    const file = await upload("c.csv", "a\n1\n");
    expect(
      (
        await fx.request("POST", `/uploads/${file.body.id}/import`, {
          body: { dataset_id: draft.id, mapping: { fields: [{ source: "a", target: "x" }] } },
        })
      ).status,
    ).toBe(422);
    expect((await fx.request("GET", "/uploads/00000000-0000-4000-8000-000000000000")).status).toBe(404);
    expect(await bytesKept(file.body.id)).toBe(true);
    expect(await fx.ok("POST", `/uploads/${file.body.id}/cancel`, undefined, 200)).toMatchObject({ status: "cancelled" });
    expect(await bytesKept(file.body.id)).toBe(false);
  });
});

describe("uploads expire", () => {
  it("removes an upload never imported after the expiry, its bytes with it, and the bytes of settled imports", async () => {
    const store = new UploadStore(fx.server.ctx.db, join(fx.server.ctx.config.dataDir, "uploads"));
    const expiry = fx.server.ctx.config.uploads.expiryMs;
    expect(expiry).toBe(24 * 3_600_000);
    const kept = await upload("keep.csv", "a\n1\n");
    const abandoned = await upload("old.csv", "a\n1\n");
    expect(await bytesKept(abandoned.body.id)).toBe(true);
    const day = Date.now() + expiry + 60_000;
    // only what is older than the expiry goes: backdate one upload
    await fx.server.ctx.db
      .updateTable("uploads")
      .set({ updated_at: new Date(Date.now() - expiry - 60_000).toISOString() })
      .where("id", "=", abandoned.body.id)
      .execute();
    const swept = await store.sweep(new Date(), expiry);
    expect(swept.removed).toBeGreaterThanOrEqual(1);
    expect((await fx.request("GET", `/uploads/${abandoned.body.id}`)).status).toBe(404);
    expect(await bytesKept(abandoned.body.id)).toBe(false);
    expect((await fx.ok<State>("GET", `/uploads/${kept.body.id}`)).status).toBe("uploaded");
    expect(await bytesKept(kept.body.id)).toBe(true);
    // an import whose job died for good (no progress for the expiry) is failed and its bytes removed
    await fx.server.ctx.db.updateTable("uploads").set({ status: "importing" }).where("id", "=", kept.body.id).execute();
    await store.sweep(new Date(day), expiry);
    expect(await fx.ok<State>("GET", `/uploads/${kept.body.id}`)).toMatchObject({ status: "failed" });
    expect(await bytesKept(kept.body.id)).toBe(false);
  });
});

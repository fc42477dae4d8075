import { describe, expect, it } from "vitest";
import { DownloadRecordsUseCase, ErrorCode, RecordCriteria, RepositoryError } from "@tessera/domain";
import { createContainer } from "./container.js";
import { MemoryStorage, PRODUCT_STORAGE_KEY } from "./storage/local-storage.js";
import { fakeFetch, json } from "./testing/fake-fetch.js";
import { attachmentName } from "./transfer-bindings.js";

function app(handler: Parameters<typeof fakeFetch>[0]) {
  const storage = new MemoryStorage();
  storage.setItem(PRODUCT_STORAGE_KEY, JSON.stringify({ "auth.token": "jwt" }));
  const http = fakeFetch(handler);
  const saved: { name: string; text: Promise<string> }[] = [];
  const c = createContainer({ storage, origin: "http://app.test", fetch: http.fn, saveFile: (blob, name) => { saved.push({ name, text: blob.text() }); } });
  return { c, http, saved };
}

describe("record downloads", () => {
  it("posts the criteria to the export route and saves the file under the server's name", async () => {
    const { c, http, saved } = app(() => new Response("{\"id\":1}\n", { headers: { "content-disposition": "attachment; filename=\"a_b.jsonl\"; filename*=UTF-8''a%20%C3%BC.jsonl" } }));
    const file = await c.resolve(DownloadRecordsUseCase).execute(new RecordCriteria({ datasetId: "d 1", status: "pending" }), "jsonl", "filtered");
    expect(file).toEqual({ filename: "a ü.jsonl", bytes: 9 });
    const request = http.calls[0]!;
    expect(request.method).toBe("POST");
    expect(new URL(request.url).pathname).toBe("/api/v1/datasets/d%201/records/export");
    expect(new URL(request.url).searchParams.get("format")).toBe("jsonl");
    expect(request.headers.get("authorization")).toBe("Bearer jwt");
    expect((await request.json() as { filters: unknown }).filters).toEqual({ and: [
      { type: "terms", scope: { entity: "response", property: "status" }, values: ["pending"] },
      { type: "terms", scope: { entity: "record", property: "status" }, values: ["pending"] },
    ] });
    expect(saved.map((s) => s.name)).toEqual(["a ü.jsonl"]);
    expect(await saved[0]!.text).toBe("{\"id\":1}\n");
  });

  it("turns a refusal into ERROR_DOWNLOADING_RECORDS with the status", async () => {
    const { c, saved } = app(() => json({ detail: "no" }, 403));
    const error = await c.resolve(DownloadRecordsUseCase).execute(new RecordCriteria({ datasetId: "d" }), "csv", "all").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RepositoryError);
    expect(error).toMatchObject({ code: ErrorCode.ERROR_DOWNLOADING_RECORDS, status: 403 });
    expect(saved).toEqual([]);
  });

  it("reads the attachment name", () => {
    expect(attachmentName(null, "x.csv")).toBe("x.csv");
    expect(attachmentName("attachment; filename=\"plain.csv\"", "x")).toBe("plain.csv");
  });
});

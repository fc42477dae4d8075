import { describe, expect, it } from "vitest";
import {
  DownloadRecordsUseCase,
  ErrorCode,
  GetUploadProgressUseCase,
  ImportUploadUseCase,
  RecordCriteria,
  RepositoryError,
  UploadFileUseCase,
} from "@tessera/domain";
import { createContainer } from "./container.js";
import { MemoryStorage, PRODUCT_STORAGE_KEY } from "./storage/local-storage.js";
import { fakeFetch, json } from "./testing/fake-fetch.js";
import { attachmentName, UploadRefused } from "./transfer-bindings.js";

function app(handler: Parameters<typeof fakeFetch>[0]) {
  const storage = new MemoryStorage();
  storage.setItem(PRODUCT_STORAGE_KEY, JSON.stringify({ "auth.token": "jwt" }));
  const http = fakeFetch(handler);
  const saved: { name: string; text: Promise<string> }[] = [];
  const c = createContainer({
    storage,
    origin: "http://app.test",
    fetch: http.fn,
    saveFile: (blob, name) => {
      saved.push({ name, text: blob.text() });
    },
  });
  return { c, http, saved };
}

describe("record downloads", () => {
  it("posts the criteria to the export route and saves the file under the server's name", async () => {
    const { c, http, saved } = app(
      () =>
        new Response('{"id":1}\n', {
          headers: { "content-disposition": "attachment; filename=\"a_b.jsonl\"; filename*=UTF-8''a%20%C3%BC.jsonl" },
        }),
    );
    const file = await c
      .resolve(DownloadRecordsUseCase)
      .execute(new RecordCriteria({ datasetId: "d 1", status: "pending" }), "jsonl", "filtered");
    expect(file).toEqual({ filename: "a ü.jsonl", bytes: 9 });
    const request = http.calls[0]!;
    expect(request.method).toBe("POST");
    expect(new URL(request.url).pathname).toBe("/api/v1/datasets/d%201/records/export");
    expect(new URL(request.url).searchParams.get("format")).toBe("jsonl");
    expect(request.headers.get("authorization")).toBe("Bearer jwt");
    expect(((await request.json()) as { filters: unknown }).filters).toEqual({
      and: [
        { type: "terms", scope: { entity: "response", property: "status" }, values: ["pending"] },
        { type: "terms", scope: { entity: "record", property: "status" }, values: ["pending"] },
      ],
    });
    expect(saved.map((s) => s.name)).toEqual(["a ü.jsonl"]);
    expect(await saved[0]!.text).toBe('{"id":1}\n');
  });

  it("turns a refusal into ERROR_DOWNLOADING_RECORDS with the status", async () => {
    const { c, saved } = app(() => json({ detail: "no" }, 403));
    const error = await c
      .resolve(DownloadRecordsUseCase)
      .execute(new RecordCriteria({ datasetId: "d" }), "csv", "all")
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RepositoryError);
    expect(error).toMatchObject({ code: ErrorCode.ERROR_DOWNLOADING_RECORDS, status: 403 });
    expect(saved).toEqual([]);
  });

  it("reads the attachment name", () => {
    expect(attachmentName(null, "x.csv")).toBe("x.csv");
    expect(attachmentName('attachment; filename="plain.csv"', "x")).toBe("plain.csv");
  });
});

describe("record uploads", () => {
  it("streams the file as the raw body and maps the preview, the import and its progress", async () => {
    const { c, http } = app(async (request) => {
      const url = new URL(request.url);
      if (url.pathname === "/api/v1/uploads")
        return json(
          {
            id: "u1",
            filename: "a.csv",
            format: "csv",
            size: 4,
            columns: [{ name: "a", feature: { _type: "Value", dtype: "int64" }, hint: null }],
            preview: [{ a: "1" }],
          },
          201,
        );
      return json(
        { id: "u1", status: "queued", rows_done: 0, rows_stored: 0, rows_failed: 0, progress: 0, error: null },
        url.pathname.endsWith("/import") ? 202 : 200,
      );
    });
    const file = new File(["a\n1\n"], "a.csv");
    const preview = await c.resolve(UploadFileUseCase).execute(file);
    expect(preview).toEqual({
      id: "u1",
      filename: "a.csv",
      format: "csv",
      size: 4,
      columns: [{ name: "a", feature: { _type: "Value", dtype: "int64" }, hint: null }],
      rows: [{ a: "1" }],
    });
    const sent = http.calls[0]!;
    expect(new URL(sent.url).searchParams.get("filename")).toBe("a.csv");
    expect(sent.headers.get("content-type")).toBe("application/octet-stream");
    expect(await sent.text()).toBe("a\n1\n");
    const mapping = {
      fields: [{ source: "a", target: "text" }],
      metadata: [],
      suggestions: [],
      responses: [],
      vectors: [],
      external_id: null,
    };
    expect(await c.resolve(ImportUploadUseCase).execute("u1", "d1", mapping)).toMatchObject({ id: "u1", status: "queued", rowsStored: 0 });
    expect(await http.calls[1]!.json()).toEqual({ dataset_id: "d1", mapping });
    expect(await c.resolve(GetUploadProgressUseCase).execute("u1")).toMatchObject({ status: "queued" });
  });

  it("keeps the server's message of a refused file", async () => {
    const { c } = app(() => json({ detail: "Row 3: not valid JSON (Unexpected token)" }, 422));
    const error = await c
      .resolve(UploadFileUseCase)
      .execute(new File(["x"], "a.jsonl"))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UploadRefused);
    expect(error).toMatchObject({ code: ErrorCode.ERROR_UPLOADING_FILE, status: 422, detail: "Row 3: not valid JSON (Unexpected token)" });
  });
});

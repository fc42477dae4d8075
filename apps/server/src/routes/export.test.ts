import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../testing/test-server.js";
import { FORBIDDEN, Fixtures, type Json } from "../testing/fixtures.js";
import {
  HUB_EXPORT_JOB,
  HUB_EXPORT_UNAVAILABLE,
  runHubExport,
  unconfiguredHubUploader,
  type HubUploader,
  type HubUploadRequest,
} from "../hub/export-job.js";

let server: TestServer;
let f: Fixtures;
let d: { workspaceId: string; datasetId: string; fieldName: string; questionName: string };
const TOKEN = "hf_secret_token_never_stored";

beforeAll(async () => {
  server = await startTestServer({ TESSERA_JOBS_RETRY_DELAY_MS: "20" });
  f = new Fixtures(server);
  d = await f.readyDataset();
}, 60_000);
afterAll(async () => {
  await server.stop();
});

const exportBody = (extra: Json = {}) => ({ name: "someone/exported", token: TOKEN, ...extra });
const settled = async (jobId: string) => {
  for (let i = 0; i < 200; i++) {
    const job = await f.ok<{ status: string; error: string | null; result: unknown }>("GET", `/jobs/${jobId}`, undefined, 200);
    if (job.status === "finished" || job.status === "failed") return job;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error("job did not settle");
};

describe("POST /datasets/{id}/export (contract 3.15)", () => {
  it("answers 422 for a dataset without records, before anything is queued", async () => {
    const jobs = await server.ctx.db.selectFrom("jobs").select("id").execute();
    expect(await f.request("POST", `/datasets/${d.datasetId}/export`, { body: exportBody() })).toEqual({
      status: 422,
      body: { detail: `Dataset with id \`${d.datasetId}\` has no records to export` },
    });
    expect(await server.ctx.db.selectFrom("jobs").select("id").execute()).toHaveLength(jobs.length);
  });

  it("validates the body, the dataset and the caller", async () => {
    const url = `/datasets/${d.datasetId}/export`;
    for (const body of [
      {},
      { name: "someone/x" },
      exportBody({ name: "not a repo id" }),
      exportBody({ private: "yes" }),
      exportBody({ split: "../x" }),
      exportBody({ subset: "a/b" }),
      exportBody({ token: "" }),
    ]) {
      const res = await f.request<Json>("POST", url, { body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body).toMatchObject({ detail: { code: "argilla.api.errors::ValidationError" } });
    }
    expect((await f.request("POST", "/datasets/00000000-0000-4000-8000-000000000000/export", { body: exportBody() })).status).toBe(404);
    const annotator = await f.member(d.workspaceId, "annotator");
    expect(await f.request("POST", url, { body: exportBody(), headers: annotator.headers })).toEqual({ status: 403, body: FORBIDDEN });
  });

  it("queues a job that fails with a clear error while no Hub uploader is configured, never storing the token", async () => {
    await f.records(d.datasetId, [{ external_id: "e-1", fields: { [d.fieldName]: "hello" } }]);
    const res = await f.request<{ id: string; status: string }>("POST", `/datasets/${d.datasetId}/export`, { body: exportBody() });
    expect(res.status).toBe(202);
    expect(res.body.status).toBe("queued");
    expect(await settled(res.body.id)).toMatchObject({ status: "failed", error: HUB_EXPORT_UNAVAILABLE, result: null });
    const row = await server.ctx.db.selectFrom("jobs").selectAll().where("id", "=", res.body.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ type: HUB_EXPORT_JOB, attempts: 1 });
    expect(JSON.stringify(row)).not.toContain(TOKEN);
  });

  it("hands the records and settings to the uploader port when one is bound", async () => {
    const uploads: HubUploadRequest[] = [];
    const memory: HubUploader = {
      configured: true,
      upload: async (request) => {
        uploads.push(request);
        return { url: `https://hub.example/datasets/${request.repoId}` };
      },
    };
    server.ctx.jobs.register(HUB_EXPORT_JOB, (payload, context) =>
      runHubExport({ db: server.ctx.db, uploader: memory }, payload as Parameters<typeof runHubExport>[1], context),
    );
    try {
      const [recordId] = await f.records(d.datasetId, [{ external_id: "e-2", fields: { [d.fieldName]: "world" } }]);
      await f.ok("POST", `/records/${recordId}/responses`, { status: "submitted", values: { [d.questionName]: { value: "yes" } } });
      const res = await f.request<{ id: string }>("POST", `/datasets/${d.datasetId}/export`, {
        body: exportBody({ subset: "en", split: "test", private: true }),
      });
      expect(res.status).toBe(202);
      expect(await settled(res.body.id)).toMatchObject({
        status: "finished",
        result: { repo_id: "someone/exported", url: "https://hub.example/datasets/someone/exported", records: 2 },
      });
      expect(uploads).toHaveLength(1);
      const upload = uploads[0]!;
      expect(upload).toMatchObject({ repoId: "someone/exported", subset: "en", split: "test", private: true, token: TOKEN });
      expect(upload.files.map((file) => file.path)).toEqual(["en/test.jsonl", ".argilla/settings.json", ".argilla/dataset.json"]);
      const rows = upload.files[0]!.content.trim()
        .split("\n")
        .map((line) => JSON.parse(line) as Json);
      expect(rows).toEqual([
        expect.objectContaining({ id: "e-1", status: "pending", [d.fieldName]: "hello", [`${d.questionName}.responses`]: [] }),
        expect.objectContaining({
          id: "e-2",
          _server_id: recordId,
          status: "completed",
          [d.fieldName]: "world",
          [`${d.questionName}.responses`]: ["yes"],
          [`${d.questionName}.responses.status`]: ["submitted"],
        }),
      ]);
      expect(JSON.parse(upload.files[1]!.content)).toMatchObject({
        fields: [{ name: d.fieldName }],
        questions: [{ name: d.questionName }],
      });
    } finally {
      server.ctx.jobs.register(HUB_EXPORT_JOB, (payload, context) =>
        runHubExport({ db: server.ctx.db, uploader: unconfiguredHubUploader }, payload as Parameters<typeof runHubExport>[1], context),
      );
    }
  });
});

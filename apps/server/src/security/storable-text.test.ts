import { describe, expect, it } from "vitest";
import { serverForFile, type Json } from "../testing/fixtures.js";
import { findUnstorableText, isUnstorableText, UNSTORABLE_TEXT_MESSAGE } from "./storable-text.js";

/**
 * Text no store can keep (issue 28 finding 5, issue 21 point 3): a NUL character or an unpaired
 * surrogate anywhere in a request answered 500 on PostgreSQL (filter values, names, titles, the
 * login form, an upload's file name) and, for an upload's file name, on SQLite too. Runs on SQLite
 * (stage 20) and on PostgreSQL (stage 60, TESSERA_TEST_DATABASE_URL): every such request is a 422
 * naming where, and nothing is written.
 */
const fx = serverForFile();

describe("isUnstorableText / findUnstorableText", () => {
  it("finds NUL and unpaired surrogates, not paired ones or other control characters", () => {
    for (const bad of ["\u0000", "a\u0000b", "\ud800", "a\ud800", "\udc00x", "\ud83d\ud83d\ude00\ud800"])
      expect(isUnstorableText(bad)).toBe(true);
    for (const good of ["", "plain", "😀", "a\u0007b\u001f\u007f", "\ufffd", "\\u0000"]) expect(isUnstorableText(good)).toBe(false);
    expect(findUnstorableText({ items: [{ fields: { text: "ok" } }, { fields: { text: "a\u0000" } }] })).toEqual([
      "items",
      1,
      "fields",
      "text",
    ]);
    expect(findUnstorableText({ "k\ud800": 1 })).toEqual(["k\ud800"]);
    expect(findUnstorableText({ v: [0.1, 2, "x"], n: null, b: true })).toBeNull();
  });
});

describe("requests with text no store can keep", () => {
  const BAD = ["a\u0000b", "\ud800", "x\udc00"];

  it("answers 422 naming where, on every kind of input, and writes nothing", async () => {
    const { workspaceId, datasetId, fieldName, questionName } = await fx.readyDataset();
    const metadata = await fx.metadataProperty(datasetId);
    const [recordId] = await fx.records(datasetId, [{ fields: { [fieldName]: "a record" }, external_id: "e1" }]);
    const user = await fx.member(workspaceId, "annotator");
    const count = async () => (await fx.ok<{ total: number }>("POST", `/datasets/${datasetId}/records/search`, {}, 200)).total;
    const before = await count();
    const search = `/me/datasets/${datasetId}/records/search`;
    const scopes: Json[] = [
      { entity: "metadata", metadata_property: metadata.name },
      { entity: "response", question: questionName },
      { entity: "suggestion", question: questionName },
      { entity: "record", property: "external_id" },
      { entity: "record", property: "id" },
      { entity: "record", property: "status" },
    ];
    for (const bad of BAD) {
      const cases: { method: string; path: string; body?: unknown; loc: (string | number)[]; headers?: Record<string, string> }[] = [
        { method: "POST", path: search, body: { query: { text: { q: bad } } }, loc: ["body", "query", "text", "q"] },
        ...scopes.flatMap((scope) => [
          {
            method: "POST",
            path: search,
            body: { filters: { and: [{ type: "terms", scope, values: [bad] }] } },
            loc: ["body", "filters", "and", 0, "values", 0],
          },
          {
            method: "POST",
            path: search,
            body: { filters: { and: [{ type: "range", scope, ge: bad }] } },
            loc: ["body", "filters", "and", 0, "ge"],
          },
        ]),
        {
          method: "POST",
          path: `/datasets/${datasetId}/records/export?format=jsonl`,
          body: { filters: { and: [{ type: "terms", scope: scopes[0], values: [bad] }] } },
          loc: ["body", "filters", "and", 0, "values", 0],
        },
        { method: "POST", path: "/workspaces", body: { name: bad }, loc: ["body", "name"] },
        {
          method: "POST",
          path: "/users",
          body: { username: "fine-name", first_name: bad, password: "password-1234" },
          loc: ["body", "first_name"],
        },
        { method: "PATCH", path: `/users/${user.id}`, body: { last_name: bad }, loc: ["body", "last_name"] },
        { method: "PATCH", path: `/datasets/${datasetId}`, body: { guidelines: bad }, loc: ["body", "guidelines"] },
        {
          method: "POST",
          path: `/records/${recordId}/responses`,
          body: { values: { [questionName]: { value: bad } }, status: "submitted" },
          loc: ["body", "values", questionName, "value"],
          headers: user.headers,
        },
      ];
      // A query string carries a NUL as %00 (a lone surrogate has no percent-encoding).
      if (bad.includes("\u0000"))
        cases.push({ method: "POST", path: `/uploads?filename=rows${bad.replace("\u0000", "%00")}.jsonl`, loc: ["query", "filename"] });
      for (const c of cases) {
        const res = await fx.request(c.method, c.path, { body: c.body, headers: c.headers });
        expect(res.status, `${c.method} ${c.path} ${JSON.stringify(c.body)}`).toBe(422);
        expect(res.body, `${c.method} ${c.path}`).toEqual({
          detail: {
            code: "argilla.api.errors::ValidationError",
            params: { errors: [{ type: "string_unstorable_character", loc: c.loc, msg: UNSTORABLE_TEXT_MESSAGE }] },
          },
        });
      }
      // The bulk routes: the records module refuses the item (records/ingest.ts), as it does for imported rows.
      const bulk: { method: string; body: unknown; where: string }[] = [
        { method: "POST", body: { items: [{ fields: { [fieldName]: bad } }] }, where: `fields.${fieldName}` },
        { method: "PUT", body: { items: [{ id: recordId, metadata: { [metadata.name]: bad } }] }, where: `metadata.${metadata.name}` },
        {
          method: "PUT",
          body: {
            items: [{ id: recordId, responses: [{ user_id: user.id, values: { [questionName]: { value: bad } }, status: "submitted" }] }],
          },
          where: `responses.0.values.${questionName}.value`,
        },
      ];
      for (const b of bulk) {
        const res = await fx.request(b.method, `/datasets/${datasetId}/records/bulk`, { body: b.body });
        expect(res.status, `${b.method} bulk ${b.where}`).toBe(422);
        expect(res.body).toEqual({
          detail: `Record at position 0 is not valid because \`${b.where}\` has the NUL character (U+0000) or an unpaired surrogate, which cannot be stored`,
        });
      }
      // The login form (urlencoded): a NUL is a 422, never a 500 (PostgreSQL refused it in the username
      // lookup); URLSearchParams sends a lone surrogate as U+FFFD, an ordinary wrong username (401).
      const login = await fetch(`${fx.server.url}/api/v1/token`, {
        method: "POST",
        body: new URLSearchParams({ username: `own${bad}er`, password: "x" }),
      });
      expect(login.status).toBe(bad.includes("\u0000") ? 422 : 401);
    }
    expect(await count()).toBe(before);
    const record = await fx.ok<{ metadata: Json | null; responses: unknown[] }>("GET", `/records/${recordId}`, undefined, 200);
    expect(record.metadata).toBeNull();
    expect(record.responses).toEqual([]);
    // Other control characters stay storable where the rules allow them (record text, search text).
    await fx.ok(
      "POST",
      `/datasets/${datasetId}/records/bulk`,
      { items: [{ fields: { [fieldName]: "bell\u0007 and escape\u001b" } }] },
      201,
    );
    expect((await fx.ok<{ total: number }>("POST", search, { query: { text: { q: "bell\u0007" } } }, 200)).total).toBe(1);
  });

  it("fails the imported rows that carry such text (file upload) with the reason, never the job, on both stores", async () => {
    const { datasetId, fieldName } = await fx.readyDataset();
    const lines = [
      { key: "k1", body: "kept" },
      { key: "k2", body: "nul\u0000here" },
    ]
      .map((row) => JSON.stringify(row))
      .join("\n");
    const uploaded = await fetch(`${fx.server.url}/api/v1/uploads?filename=rows.jsonl`, {
      method: "POST",
      headers: { ...fx.owner, "content-type": "application/octet-stream" },
      body: `${lines}\n`,
    });
    expect(uploaded.status).toBe(201);
    const { id } = (await uploaded.json()) as { id: string };
    const mapping = {
      fields: [{ source: "body", target: fieldName }],
      metadata: [],
      suggestions: [],
      responses: [],
      vectors: [],
      external_id: "key",
    };
    await fx.ok("POST", `/uploads/${id}/import`, { dataset_id: datasetId, mapping }, 202);
    let state: Json = {};
    for (let i = 0; i < 200 && !["finished", "failed", "cancelled"].includes(String(state.status)); i++) {
      await new Promise((r) => setTimeout(r, 100));
      state = await fx.ok("GET", `/uploads/${id}`, undefined, 200);
    }
    // A batch is stored whole or not at all (docs/api.md): both rows are listed, the second with the reason.
    expect(state).toMatchObject({ status: "finished", rows_stored: 0, rows_failed: 2 });
    const failures = await (await fetch(`${fx.server.url}/api/v1/uploads/${id}/failures`, { headers: fx.owner })).text();
    expect(failures).toContain(
      `Row 2: \`fields.${fieldName}\` has the NUL character (U+0000) or an unpaired surrogate, which cannot be stored`,
    );
    expect((await fx.ok<{ total: number }>("POST", `/datasets/${datasetId}/records/search`, {}, 200)).total).toBe(0);
  });
});

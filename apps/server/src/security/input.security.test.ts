import { describe, expect, it } from "vitest";
import { serverForFile, uniqueName, type Json } from "../testing/fixtures.js";
import { HOSTILE_SEARCH_TEXTS } from "../testing/hostile-inputs.js";

/**
 * Issue 28, findings 5 and 6: names are validated as the Argilla 2.x server does (workspaces and
 * usernames by its patterns, every other name for control characters, edge whitespace and length),
 * and any search text answers a result or a 4xx, never a 500 (the port suite runs the same texts on
 * SQLite and PostgreSQL; this file goes through HTTP).
 */
const fx = serverForFile();

const pattern = (field: string, regex: string, input: string) => ({
  detail: {
    code: "argilla.api.errors::ValidationError",
    params: { errors: [{ type: "string_pattern_mismatch", loc: ["body", field], msg: `String should match pattern '${regex}'` }] },
  },
  input,
});

describe("names", () => {
  it("accepts workspace names of Argilla's pattern only (422 with the server's shape otherwise)", async () => {
    for (const name of [" lead", "trail ", "a/b", "a\u0007b", "-dash", "_under", "Upper", "with space", "ümlaut", "a.b", "a\u0000", ""]) {
      const res = await fx.request("POST", "/workspaces", { body: { name } });
      expect(res.status, JSON.stringify(name)).toBe(422);
      // A NUL is refused before any route by the storable-text rule (security/storable-text.ts), at the same location.
      if (name.includes("\u0000")) expect(JSON.stringify(res.body)).toContain('"loc":["body","name"]');
      else if (name !== "") expect({ ...(res.body as Json), input: name }).toEqual(pattern("name", "^[a-z0-9][a-z0-9-_]*$", name));
    }
    for (const name of [uniqueName("ok"), `0${uniqueName("x")}`, `a_b-${uniqueName("c")}`]) {
      expect((await fx.request("POST", "/workspaces", { body: { name } })).status).toBe(201);
    }
  });

  it("accepts usernames of Argilla's pattern only, at creation and at update", async () => {
    const user = await fx.user("annotator");
    for (const username of [" lead", "a/b", "bell\u0007", "-dash", "_under", "with space"]) {
      const created = await fx.request("POST", "/users", { body: { username, first_name: "X", password: "password-1234" } });
      expect(created.status, JSON.stringify(username)).toBe(422);
      expect({ ...(created.body as Json), input: username }).toEqual(pattern("username", "^[A-Za-z0-9][A-Za-z0-9-_]*$", username));
      expect((await fx.request("PATCH", `/users/${user.id}`, { body: { username } })).status).toBe(422);
    }
    expect(
      (await fx.request("POST", "/users", { body: { username: `Mixed_Case-${Date.now()}`, first_name: "X", password: "password-1234" } }))
        .status,
    ).toBe(201);
    // First and last names: trimmed (as the reference server), no control characters.
    for (const first_name of ["bell\u0007", "esc\u001b[31m", "line\nbreak", "   "]) {
      const created = await fx.request("POST", "/users", { body: { username: `fn-${Date.now()}`, first_name, password: "password-1234" } });
      expect(created.status, JSON.stringify(first_name)).toBe(422);
      expect((await fx.request("PATCH", `/users/${user.id}`, { body: { last_name: first_name } })).status).toBe(422);
    }
    const trimmed = await fx.ok<{ first_name: string }>("POST", "/users", {
      username: `trim-${Date.now()}`,
      first_name: "  Ada Lovelace ",
      password: "password-1234",
    });
    expect(trimmed.first_name).toBe("Ada Lovelace");
  });

  it("refuses control characters, edge whitespace and over-long names of datasets, fields, questions, metadata and vectors", async () => {
    const ws = await fx.workspace();
    const ds = await fx.dataset(ws.id);
    const bad = [" lead", "trail ", "\tab", "a\u0007b", "a\u0000b", "line\nbreak", "del\u007f", "x".repeat(201)];
    const targets: { path: string; body: (name: string) => Json }[] = [
      { path: "/datasets", body: (name) => ({ name, workspace_id: ws.id }) },
      { path: `/datasets/${ds.id}/fields`, body: (name) => ({ name, title: "T", settings: { type: "text" } }) },
      { path: `/datasets/${ds.id}/questions`, body: (name) => ({ name, title: "T", settings: { type: "text" } }) },
      { path: `/datasets/${ds.id}/metadata-properties`, body: (name) => ({ name, title: "T", settings: { type: "terms" } }) },
      { path: `/datasets/${ds.id}/vectors-settings`, body: (name) => ({ name, title: "T", dimensions: 2 }) },
    ];
    for (const t of targets) {
      for (const name of bad) {
        const res = await fx.request("POST", t.path, { body: t.body(name) });
        expect(res.status, `${t.path} ${JSON.stringify(name.slice(0, 20))}`).toBe(422);
        expect((res.body as { detail: { code: string } }).detail.code).toBe("argilla.api.errors::ValidationError");
      }
    }
    // Names the SDK and people use stay accepted: inner spaces and punctuation in dataset, field and vector names.
    expect((await fx.request("POST", "/datasets", { body: { name: "My dataset (v2): reviews/2024", workspace_id: ws.id } })).status).toBe(
      201,
    );
    expect(
      (await fx.request("POST", `/datasets/${ds.id}/fields`, { body: { name: "Text Field.1", title: "T", settings: { type: "text" } } }))
        .status,
    ).toBe(201);
    expect(
      (await fx.request("POST", `/datasets/${ds.id}/vectors-settings`, { body: { name: "mini-lm:v2", title: "T", dimensions: 2 } })).status,
    ).toBe(201);
    expect((await fx.request("PATCH", `/datasets/${ds.id}`, { body: { name: "renamed\u0007" } })).status).toBe(422);
  });
});

describe("search text", () => {
  it("answers every hostile text with a result or a 4xx, never a 500, on both search routes, whole and per field", async () => {
    const { datasetId, fieldName } = await fx.readyDataset();
    await fx.ok("POST", `/datasets/${datasetId}/records/bulk`, {
      items: [{ fields: { [fieldName]: "quick brown fox" } }, { fields: { [fieldName]: 'it\'s a "quoted" text' } }],
    });
    const statuses = new Map<number, number>();
    for (const q of [...HOSTILE_SEARCH_TEXTS, "x".repeat(10_001), Array.from({ length: 65 }, (_, i) => `w${i}`).join(" ")]) {
      for (const path of [`/me/datasets/${datasetId}/records/search`, `/datasets/${datasetId}/records/search`]) {
        for (const text of [{ q }, { q, field: fieldName }]) {
          const res = await fx.request("POST", `${path}?include=responses`, { body: { query: { text } } });
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          expect(res.status, `${path} ${JSON.stringify(q.slice(0, 40))}`).toBeLessThan(500);
        }
      }
    }
    expect([...statuses.keys()].sort()).toEqual([200, 422]);
    // Other control characters are word breaks; a NUL is text no store can keep: 422 (security/storable-text.ts).
    const bell = await fx.request<{ total: number }>("POST", `/me/datasets/${datasetId}/records/search`, {
      body: { query: { text: { q: "quick\u0007fox" } } },
    });
    expect(bell.status).toBe(200);
    expect(bell.body.total).toBe(1);
    const nul = await fx.request("POST", `/me/datasets/${datasetId}/records/search`, {
      body: { query: { text: { q: "quick\u0000fox" } } },
    });
    expect(nul.status).toBe(422);
    const tooMany = await fx.request("POST", `/me/datasets/${datasetId}/records/search`, {
      body: { query: { text: { q: Array.from({ length: 65 }, (_, i) => `w${i}`).join(" ") } } },
    });
    expect(tooMany.body).toEqual({ detail: "The search text has more than 64 different words" });
  });
});

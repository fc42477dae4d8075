import { describe, expect, it } from "vitest";
import { FORBIDDEN, MISSING, serverForFile, type Json, type ValidationBody } from "../testing/fixtures.js";

const fx = serverForFile();

const opts = (...values: string[]) => values.map((value) => ({ value, text: value.toUpperCase() }));
const stored = (...values: string[]) => values.map((value) => ({ value, text: value.toUpperCase(), description: null }));

async function draftWithText(): Promise<{ id: string; workspaceId: string }> {
  const ws = await fx.workspace();
  const ds = await fx.dataset(ws.id);
  await fx.field(ds.id, { name: "text", title: "Text" });
  await fx.field(ds.id, { name: "picture", title: "Picture", settings: { type: "image" } });
  return { id: ds.id, workspaceId: ws.id };
}
const create = async (datasetId: string, settings: Json, extra: Json = {}) =>
  fx.request<Json & ValidationBody & { id: string }>("POST", `/datasets/${datasetId}/questions`, {
    body: { name: "q", title: "Q", settings, ...extra },
  });

describe("POST /datasets/{id}/questions: stored settings per type", () => {
  it.each([
    [{ type: "text" }, { type: "text", use_markdown: false }],
    [
      { type: "rating", options: [{ value: 1 }, { value: 2 }, { value: 3 }] },
      { type: "rating", options: [{ value: 1 }, { value: 2 }, { value: 3 }] },
    ],
    [
      { type: "label_selection", options: opts("a", "b") },
      { type: "label_selection", options: stored("a", "b"), visible_options: null },
    ],
    [
      { type: "multi_label_selection", options: opts("a", "b", "c"), visible_options: 3 },
      { type: "multi_label_selection", options: stored("a", "b", "c"), visible_options: 3, options_order: "natural" },
    ],
    [
      { type: "ranking", options: opts("a", "b") },
      { type: "ranking", options: stored("a", "b") },
    ],
    [
      { type: "span", field: "text", options: opts("per") },
      {
        type: "span",
        field: "text",
        options: stored("per"),
        visible_options: null,
        allow_overlapping: false,
        allow_character_annotation: true,
      },
    ],
  ])("%j", async (settings, expected) => {
    const ds = await draftWithText();
    const res = await create(ds.id, settings, { description: "Help", required: true, id: null, dataset_id: ds.id });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual([
      "dataset_id",
      "description",
      "id",
      "inserted_at",
      "name",
      "required",
      "settings",
      "title",
      "updated_at",
    ]);
    expect(res.body).toMatchObject({ name: "q", title: "Q", description: "Help", required: true, settings: expected });
    const list = await fx.ok<{ items: Json[] }>("GET", `/datasets/${ds.id}/questions`);
    expect(list.items).toEqual([res.body]);
  });
});

describe("question validation", () => {
  it.each([
    ["an invalid name", { type: "text" }, { name: "Bad Name" }, "name"],
    ["a name with no letter or digit", { type: "text" }, { name: "__" }, "name"],
    ["an oversized title", { type: "text" }, { title: "t".repeat(501) }, "title"],
    ["an empty description", { type: "text" }, { description: "" }, "description"],
    ["an unknown type", { type: "emoji" }, {}, "settings"],
    ["one rating option", { type: "rating", options: [{ value: 1 }] }, {}, "settings"],
    ["a rating above 10", { type: "rating", options: [{ value: 1 }, { value: 11 }] }, {}, "settings"],
    ["a non-integer rating", { type: "rating", options: [{ value: 1 }, { value: 1.5 }] }, {}, "settings"],
    ["twelve rating options", { type: "rating", options: Array.from({ length: 12 }, (_, i) => ({ value: i % 11 })) }, {}, "settings"],
    ["one label", { type: "label_selection", options: opts("a") }, {}, "settings"],
    ["501 labels", { type: "label_selection", options: opts(...Array.from({ length: 501 }, (_, i) => `l${i}`)) }, {}, "settings"],
    ["visible_options below 3", { type: "label_selection", options: opts("a", "b", "c"), visible_options: 2 }, {}, "settings"],
    [
      "an empty option value",
      {
        type: "label_selection",
        options: [
          { value: "", text: "x" },
          { value: "b", text: "b" },
        ],
      },
      {},
      "settings",
    ],
    [
      "an oversized option text",
      {
        type: "label_selection",
        options: [
          { value: "a", text: "x".repeat(501) },
          { value: "b", text: "b" },
        ],
      },
      {},
      "settings",
    ],
    ["an unknown options_order", { type: "multi_label_selection", options: opts("a", "b"), options_order: "random" }, {}, "settings"],
    ["51 ranking options", { type: "ranking", options: opts(...Array.from({ length: 51 }, (_, i) => `r${i}`)) }, {}, "settings"],
    ["a span without options", { type: "span", field: "text", options: [] }, {}, "settings"],
    ["a span without field", { type: "span", options: opts("a") }, {}, "settings"],
  ])("refuses %s with the legacy 422", async (_label, settings, extra, key) => {
    const ds = await draftWithText();
    const res = await create(ds.id, settings, extra);
    expect(res.status).toBe(422);
    expect(res.body.detail.code).toBe("argilla.api.errors::ValidationError");
    expect(res.body.detail.params.errors[0]!.loc[1]).toBe(key);
  });

  it("refuses duplicate option values and visible_options above the option count with the contract messages", async () => {
    const ds = await draftWithText();
    const dup = await create(ds.id, { type: "label_selection", options: opts("a", "b", "a") });
    expect(dup.status).toBe(422);
    expect(dup.body.detail.params.errors[0]!.msg).toBe("Option values must be unique, found duplicates: {'a'}");
    const ratingDup = await create(ds.id, { type: "rating", options: [{ value: 1 }, { value: 1 }] });
    expect(ratingDup.body.detail.params.errors[0]!.msg).toBe("Option values must be unique, found duplicates: {1}");
    const visible = await create(ds.id, { type: "span", field: "text", options: opts("a", "b", "c"), visible_options: 4 });
    expect(visible.body.detail.params.errors[0]!.msg).toBe(
      "the value for 'visible_options' must be less or equal to the number of items in 'options' (3)",
    );
  });

  it("requires a span's field to be a text field not used by another span question", async () => {
    const ds = await draftWithText();
    expect(await create(ds.id, { type: "span", field: "picture", options: opts("a") })).toEqual({
      status: 422,
      body: { detail: "'picture' is not a valid field name.\nValid field names are ['text']" },
    });
    const first = await create(ds.id, { type: "span", field: "text", options: opts("a") }, { name: "first" });
    expect(await create(ds.id, { type: "span", field: "text", options: opts("a") }, { name: "second" })).toEqual({
      status: 422,
      body: { detail: `'text' is already used by span question with id '${first.body.id as string}'` },
    });
  });

  it("409 on a duplicate name, 422 on a published dataset, 404 on an unknown dataset", async () => {
    const ds = await draftWithText();
    expect((await create(ds.id, { type: "text" })).status).toBe(201);
    const dup = await fx.request("POST", `/datasets/${ds.id}/questions`, { body: { name: "q", title: "Q", settings: { type: "text" } } });
    expect(dup).toEqual({ status: 409, body: { detail: `Question with name \`q\` already exists for dataset with id \`${ds.id}\`` } });
    await fx.publish(ds.id);
    expect(
      await fx.request("POST", `/datasets/${ds.id}/questions`, { body: { name: "q2", title: "Q", settings: { type: "text" } } }),
    ).toEqual({ status: 422, body: { detail: "questions cannot be created for a published dataset" } });
    expect(
      (await fx.request("POST", `/datasets/${MISSING}/questions`, { body: { name: "q2", title: "Q", settings: { type: "text" } } })).status,
    ).toBe(404);
  });
});

describe("PATCH /questions/{id}", () => {
  it("updates title, description, required and the per-type settings keys", async () => {
    const ds = await draftWithText();
    const q = (await create(ds.id, { type: "multi_label_selection", options: opts("a", "b", "c") })).body as { id: string };
    const res = await fx.ok(
      "PATCH",
      `/questions/${q.id}`,
      {
        name: "ignored",
        title: "New",
        description: null,
        required: false,
        settings: {
          type: "multi_label_selection",
          visible_options: 3,
          options_order: "suggestion",
          options: [
            { value: "c", text: "See" },
            { value: "a", text: "A" },
            { value: "b", text: "B" },
          ],
        },
      },
      200,
    );
    expect(res).toMatchObject({
      name: "q",
      title: "New",
      description: null,
      required: false,
      settings: {
        type: "multi_label_selection",
        visible_options: 3,
        options_order: "suggestion",
        options: [{ value: "c", text: "See", description: null }, { value: "a" }, { value: "b" }],
      },
    });
  });

  it.each([
    [{ type: "text" }, { type: "rating" }, "question type cannot be changed. expected 'text' but got 'rating'"],
    [
      { type: "label_selection", options: opts("a", "b") },
      { type: "label_selection", options: opts("a", "b", "c") },
      "the number of options cannot be modified. expected 2 but got 3",
    ],
    [
      { type: "label_selection", options: opts("a", "b") },
      { type: "label_selection", options: opts("a", "z") },
      "the option values cannot be modified. found unexpected option values: ['z']",
    ],
    [
      { type: "label_selection", options: opts("a", "b", "c") },
      { type: "label_selection", visible_options: 4 },
      "the value for 'visible_options' must be less or equal to the number of items in 'options' (3)",
    ],
    [
      { type: "span", field: "text", options: opts("a"), allow_overlapping: true },
      { type: "span", allow_overlapping: false },
      "'allow_overlapping' can't be disabled because responses may become inconsistent",
    ],
  ])("refuses %j -> %j with a flat 422", async (settings, update, message) => {
    const ds = await draftWithText();
    const q = (await create(ds.id, settings)).body as { id: string };
    expect(await fx.request("PATCH", `/questions/${q.id}`, { body: { settings: update } })).toEqual({
      status: 422,
      body: { detail: message },
    });
  });

  it("refuses nulls for non-nullable keys; 404 on unknown; 422 on malformed id", async () => {
    const ds = await draftWithText();
    const q = (await create(ds.id, { type: "text" })).body as { id: string };
    const res = await fx.request<ValidationBody>("PATCH", `/questions/${q.id}`, { body: { title: null, required: null } });
    expect(res.body.detail.params.errors[0]!.msg).toBe("The following keys must have non-null values: title, required");
    expect(await fx.request("PATCH", `/questions/${MISSING}`, { body: { title: "x" } })).toEqual({
      status: 404,
      body: { detail: `Question with id \`${MISSING}\` not found` },
    });
    expect((await fx.request("PATCH", "/questions/zzz", { body: { title: "x" } })).status).toBe(422);
  });
});

describe("DELETE /questions/{id} and permissions", () => {
  it("deletes in draft, refuses on published datasets", async () => {
    const ds = await draftWithText();
    const extra = (await create(ds.id, { type: "text" }, { name: "extra" })).body as { id: string };
    expect(await fx.ok("DELETE", `/questions/${extra.id}`)).toMatchObject({ id: extra.id });
    const kept = await fx.question(ds.id);
    await fx.publish(ds.id);
    expect(await fx.request("DELETE", `/questions/${kept.id}`)).toEqual({
      status: 422,
      body: { detail: "questions cannot be deleted for a published dataset" },
    });
  });

  it("members read; only owners and admin members write", async () => {
    const ds = await draftWithText();
    const q = await fx.question(ds.id);
    const admin = await fx.member(ds.workspaceId, "admin");
    const annotator = await fx.member(ds.workspaceId);
    const outsider = await fx.user("admin");
    expect((await fx.request("GET", `/datasets/${ds.id}/questions`, { headers: annotator.headers })).status).toBe(200);
    expect((await fx.request("GET", `/datasets/${ds.id}/questions`, { headers: outsider.headers })).body).toEqual(FORBIDDEN);
    expect((await fx.request("GET", `/datasets/${ds.id}/questions`, { headers: null })).status).toBe(401);
    for (const actor of [annotator, outsider]) {
      expect(
        (
          await fx.request("POST", `/datasets/${ds.id}/questions`, {
            headers: actor.headers,
            body: { name: "n", title: "t", settings: { type: "text" } },
          })
        ).body,
      ).toEqual(FORBIDDEN);
      expect((await fx.request("PATCH", `/questions/${q.id}`, { headers: actor.headers, body: { title: "x" } })).body).toEqual(FORBIDDEN);
      expect((await fx.request("DELETE", `/questions/${q.id}`, { headers: actor.headers })).body).toEqual(FORBIDDEN);
    }
    expect((await fx.request("PATCH", `/questions/${q.id}`, { headers: admin.headers, body: { title: "x" } })).status).toBe(200);
  });
});

describe("span option colours", () => {
  it("stores HSL colours on create and PATCH, and refuses other colour formats", async () => {
    const ds = await draftWithText();
    const q = (
      await create(ds.id, {
        type: "span",
        field: "text",
        options: [
          { value: "per", text: "Person", color: "hsl(120, 80%, 80%)" },
          { value: "org", text: "Org" },
        ],
      })
    ).body as unknown as { id: string; settings: { options: { color?: string }[] } };
    expect(q.settings.options.map((o) => o.color)).toEqual(["hsl(120, 80%, 80%)", undefined]);
    const res = (await fx.ok(
      "PATCH",
      `/questions/${q.id}`,
      {
        settings: {
          type: "span",
          options: [
            { value: "per", text: "Person", color: "hsl(10, 60%, 60%)" },
            { value: "org", text: "Org", color: "hsl(200,80%,80%)" },
          ],
        },
      },
      200,
    )) as { settings: { options: { color?: string }[] } };
    expect(res.settings.options.map((o) => o.color)).toEqual(["hsl(10, 60%, 60%)", "hsl(200,80%,80%)"]);
    const bad = await fx.request<ValidationBody>("PATCH", `/questions/${q.id}`, {
      body: {
        settings: {
          type: "span",
          options: [
            { value: "per", text: "Person", color: "#ff0000" },
            { value: "org", text: "Org" },
          ],
        },
      },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.detail.params.errors[0]!.msg).toBe("The value color must be HSL for now.");
  });
});

import { describe, expect, it } from "vitest";
import { FORBIDDEN, MISSING, serverForFile, type Items, type ValidationBody } from "../testing/fixtures.js";

const fx = serverForFile();

const draft = async () => fx.dataset((await fx.workspace()).id);

describe("POST /datasets/{id}/fields", () => {
  it.each([
    [{ type: "text" }, { type: "text", use_markdown: false }],
    [
      { type: "text", use_markdown: true },
      { type: "text", use_markdown: true },
    ],
    [{ type: "image" }, { type: "image" }],
    [{ type: "chat" }, { type: "chat", use_markdown: true }],
    [
      { type: "custom", template: "<div>{{record.fields.x}}</div>" },
      { type: "custom", template: "<div>{{record.fields.x}}</div>", advanced_mode: false },
    ],
  ])("stores %j as %j", async (settings, stored) => {
    const ds = await draft();
    const res = await fx.request("POST", `/datasets/${ds.id}/fields`, {
      body: {
        name: "Prompt Text",
        title: "Prompt",
        required: null,
        settings,
        description: null,
        dataset_id: ds.id,
        id: null,
        inserted_at: null,
        updated_at: null,
      },
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual([
      "dataset_id",
      "id",
      "inserted_at",
      "name",
      "required",
      "settings",
      "title",
      "updated_at",
    ]);
    expect(res.body).toMatchObject({ name: "Prompt Text", title: "Prompt", required: true, dataset_id: ds.id });
    expect(res.body.settings).toEqual(stored);
    const list = await fx.ok<Items>("GET", `/datasets/${ds.id}/fields`);
    expect(list.items).toEqual([res.body]);
  });

  it("409 on a duplicate name; 422 on a published dataset; 404 on an unknown dataset", async () => {
    const ds = await draft();
    const field = await fx.field(ds.id);
    expect(
      await fx.request("POST", `/datasets/${ds.id}/fields`, { body: { name: field.name, title: "t", settings: { type: "text" } } }),
    ).toEqual({
      status: 409,
      body: { detail: `Field with name \`${field.name}\` already exists for dataset with id \`${ds.id}\`` },
    });
    await fx.question(ds.id);
    await fx.publish(ds.id);
    expect(
      await fx.request("POST", `/datasets/${ds.id}/fields`, { body: { name: "other", title: "t", settings: { type: "text" } } }),
    ).toEqual({
      status: 422,
      body: { detail: "Field cannot be created for a published dataset" },
    });
    expect(
      (await fx.request("POST", `/datasets/${MISSING}/fields`, { body: { name: "x", title: "t", settings: { type: "text" } } })).status,
    ).toBe(404);
  });

  it.each([
    [{ title: "t", settings: { type: "text" } }, "name"],
    [{ name: "", title: "t", settings: { type: "text" } }, "name"],
    [{ name: "n".repeat(201), title: "t", settings: { type: "text" } }, "name"],
    [{ name: "n", settings: { type: "text" } }, "title"],
    [{ name: "n", title: "t".repeat(501), settings: { type: "text" } }, "title"],
    [{ name: "n", title: "t", settings: { type: "video" } }, "settings"],
    [{ name: "n", title: "t", settings: { type: "custom" } }, "settings"],
    [{ name: "n", title: "t", settings: { type: "text", use_markdown: "yes" } }, "settings"],
    [{ name: "n", title: "t", required: "yes", settings: { type: "text" } }, "required"],
  ])("refuses %j with the legacy 422 naming %s", async (body, key) => {
    const ds = await draft();
    const res = await fx.request<ValidationBody>("POST", `/datasets/${ds.id}/fields`, { body });
    expect(res.status).toBe(422);
    expect(res.body.detail.code).toBe("argilla.api.errors::ValidationError");
    expect(res.body.detail.params.errors[0]!.loc[1]).toBe(key);
  });
});

describe("PATCH /fields/{id}", () => {
  it("updates title and settings, ignores name and required, refuses a type change", async () => {
    const ds = await draft();
    const field = await fx.field(ds.id);
    const res = await fx.ok(
      "PATCH",
      `/fields/${field.id}`,
      { name: "renamed", required: false, title: "New title", settings: { type: "text", use_markdown: true } },
      200,
    );
    expect(res).toMatchObject({ name: field.name, required: true, title: "New title", settings: { type: "text", use_markdown: true } });
    expect(await fx.request("PATCH", `/fields/${field.id}`, { body: { settings: { type: "chat", use_markdown: true } } })).toEqual({
      status: 422,
      body: { detail: "Field type cannot be changed. Expected 'text' but got 'chat'" },
    });
    expect((await fx.request("PATCH", `/fields/${field.id}`, { body: { settings: { type: "text" } } })).status).toBe(422);
    const nulls = await fx.request<ValidationBody>("PATCH", `/fields/${field.id}`, { body: { title: null, settings: null } });
    expect(nulls.body.detail.params.errors[0]!.msg).toBe("The following keys must have non-null values: title, settings");
  });

  it("updates a custom field's template (needs template and advanced_mode)", async () => {
    const ds = await draft();
    const field = await fx.field(ds.id, { settings: { type: "custom", template: "<p>a</p>" } });
    expect(
      (await fx.request("PATCH", `/fields/${field.id}`, { body: { settings: { type: "custom", template: "<p>b</p>" } } })).status,
    ).toBe(422);
    expect(
      await fx.ok("PATCH", `/fields/${field.id}`, { settings: { type: "custom", template: "<p>b</p>", advanced_mode: true } }, 200),
    ).toMatchObject({ settings: { type: "custom", template: "<p>b</p>", advanced_mode: true } });
  });

  it("404 on unknown, 422 on malformed ids", async () => {
    expect(await fx.request("PATCH", `/fields/${MISSING}`, { body: { title: "x" } })).toEqual({
      status: 404,
      body: { detail: `Field with id \`${MISSING}\` not found` },
    });
    expect((await fx.request("PATCH", "/fields/42", { body: { title: "x" } })).status).toBe(422);
  });
});

describe("DELETE /fields/{id}", () => {
  it("deletes in draft, refuses on a published dataset", async () => {
    const ds = await draft();
    const extra = await fx.field(ds.id);
    expect(await fx.ok("DELETE", `/fields/${extra.id}`)).toMatchObject({ id: extra.id });
    expect((await fx.request("DELETE", `/fields/${extra.id}`)).status).toBe(404);
    const kept = await fx.field(ds.id);
    await fx.question(ds.id);
    await fx.publish(ds.id);
    expect(await fx.request("DELETE", `/fields/${kept.id}`)).toEqual({
      status: 422,
      body: { detail: "Fields cannot be deleted for a published dataset" },
    });
  });
});

describe("permissions", () => {
  it("members read; only owners and admin members write", async () => {
    const ws = await fx.workspace();
    const ds = await fx.dataset(ws.id);
    const field = await fx.field(ds.id);
    const admin = await fx.member(ws.id, "admin");
    const annotator = await fx.member(ws.id);
    const outsider = await fx.user("admin");
    expect((await fx.request("GET", `/datasets/${ds.id}/fields`, { headers: annotator.headers })).status).toBe(200);
    expect((await fx.request("GET", `/datasets/${ds.id}/fields`, { headers: outsider.headers })).body).toEqual(FORBIDDEN);
    expect((await fx.request("GET", `/datasets/${ds.id}/fields`, { headers: null })).status).toBe(401);
    for (const actor of [annotator, outsider]) {
      expect(
        (
          await fx.request("POST", `/datasets/${ds.id}/fields`, {
            headers: actor.headers,
            body: { name: "n", title: "t", settings: { type: "text" } },
          })
        ).body,
      ).toEqual(FORBIDDEN);
      expect((await fx.request("PATCH", `/fields/${field.id}`, { headers: actor.headers, body: { title: "x" } })).body).toEqual(FORBIDDEN);
      expect((await fx.request("DELETE", `/fields/${field.id}`, { headers: actor.headers })).body).toEqual(FORBIDDEN);
    }
    expect((await fx.request("PATCH", `/fields/${field.id}`, { headers: admin.headers, body: { title: "x" } })).status).toBe(200);
    expect(
      (
        await fx.request("POST", `/datasets/${ds.id}/fields`, {
          headers: admin.headers,
          body: { name: "n", title: "t", settings: { type: "image" } },
        })
      ).status,
    ).toBe(201);
  });
});

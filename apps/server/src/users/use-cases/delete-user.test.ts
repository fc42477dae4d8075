import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RichDataset } from "../../records/testing.js";
import { datasetWithRecords } from "../../testing/dataset-with-records.js";
import { countsSeenDuring } from "../../testing/batched-deletion.js";
import { addResponses } from "../../testing/responses.js";
import type { TestServer } from "../../testing/test-server.js";
import { deleteUser } from "./delete-user.js";

/** Deleting a user deletes their responses in batches (other requests run between two); others' responses stay. */
describe("deleting a user with many responses", () => {
  let server: TestServer;
  let d: RichDataset;
  let ids: string[];

  beforeAll(async () => {
    ({ server, d, ids } = await datasetWithRecords(420, { prefix: "u" }));
    await addResponses(server.ctx.db, ids, d.annotator.id, "draft");
    await addResponses(server.ctx.db, ids.slice(0, 50), d.annotator2.id, "draft");
  }, 120_000);
  afterAll(() => server?.stop());

  const responsesOf = async (userId: string) =>
    Number(
      (
        await server.ctx.db
          .selectFrom("responses")
          .select((eb) => eb.fn.countAll().as("n"))
          .where("user_id", "=", userId)
          .executeTakeFirstOrThrow()
      ).n,
    );
  const row = (id: string) => server.ctx.db.selectFrom("users").selectAll().where("id", "=", id).executeTakeFirst();

  it("deletes the responses in batches, then the user", async () => {
    expect(await responsesOf(d.annotator.id)).toBe(420);
    const owner = await server.ctx.db.selectFrom("users").selectAll().where("username", "=", "owner").executeTakeFirstOrThrow();
    const user = (await row(d.annotator.id))!;
    const seen = await countsSeenDuring(
      () => responsesOf(d.annotator.id),
      (batches) => deleteUser(server.ctx.db, user, owner, batches),
      40,
    );
    expect([...seen].some((n) => n > 0 && n < 420)).toBe(true);
    expect(await responsesOf(d.annotator.id)).toBe(0);
    expect(await row(d.annotator.id)).toBeUndefined();
    expect(await responsesOf(d.annotator2.id)).toBe(50);
    // Through the API; nobody deletes themself.
    await d.f.ok("DELETE", `/users/${d.annotator2.id}`);
    expect(await responsesOf(d.annotator2.id)).toBe(0);
    expect((await d.f.request("DELETE", `/users/${owner.id}`)).status).toBe(422);
  });
});

import { describe, expect, it, vi } from "vitest";
import { RecordCriteria } from "../../criteria/record-criteria.js";
import { GetRecordsByCriteriaUseCase } from "../annotation/get-records-by-criteria.js";
import { LoadRecordsUseCase } from "../annotation/load-records.js";
import { SignOutUseCase } from "../sign-out.js";
import { FakeRecords, fakeFields, fakeQuestions } from "../../testing/fake-repositories.js";
import type { QueueReservations } from "./ports.js";

const reservations: QueueReservations = { expiresAt: "2026-01-01T00:05:00Z", ttlSeconds: 300, heldByOthers: { records: 4, teammates: 2 } };

describe("reservations of the team's queue (issue 29)", () => {
  it("asks the server to reserve the plain pending queue only (focus and bulk), never a search, filter, sort or other status", async () => {
    const records = FakeRecords.withCount(3);
    const load = new LoadRecordsUseCase(new GetRecordsByCriteriaUseCase(records, fakeQuestions(), fakeFields()));
    const plain = new RecordCriteria({ datasetId: "d" });
    const bulk = new RecordCriteria({ datasetId: "d" });
    bulk.page.mode = "bulk";
    await load.load(plain);
    await load.load(bulk);
    expect(records.requests.map((r) => r.reserve)).toEqual([true, true]);
    const own = [
      new RecordCriteria({ datasetId: "d", searchText: "cats" }),
      new RecordCriteria({ datasetId: "d", metadata: [{ kind: "terms", name: "genre", values: ["news"] }] }),
      new RecordCriteria({ datasetId: "d", sort: [{ key: { entity: "record", property: "inserted_at" }, order: "desc" }] }),
      new RecordCriteria({ datasetId: "d", status: "submitted" }),
    ];
    for (const criteria of own) expect(criteria.takesFromTeamQueue).toBe(false);
    records.requests.length = 0;
    for (const criteria of own) await load.load(criteria);
    expect(records.requests.some((r) => r.reserve)).toBe(false);
  });

  it("keeps what the server said about teammates' reservations on the queue", async () => {
    const records = FakeRecords.withCount(0);
    records.search = async (request) => {
      records.requests.push(request);
      return { records: [], total: 0, reservations };
    };
    const queue = await new LoadRecordsUseCase(new GetRecordsByCriteriaUseCase(records, fakeQuestions(), fakeFields())).load(
      new RecordCriteria({ datasetId: "d" }),
    );
    expect(queue.isEmpty).toBe(true);
    expect(queue.reservations).toEqual(reservations);
  });

  it("signing out gives the records back while the token is still held, then forgets the token", () => {
    const order: string[] = [];
    let token: string | null = "t";
    const tokens = {
      get: () => token,
      set: () => undefined,
      clear: () => {
        order.push("clear");
        token = null;
      },
    };
    const releaseAll = vi.fn(async () => {
      order.push(`release with ${token}`);
    });
    new SignOutUseCase(tokens, { releaseAll }).execute();
    expect(order).toEqual(["release with t", "clear"]);
    new SignOutUseCase(tokens, { releaseAll }).execute(); // signed out already: nothing to release
    expect(releaseAll).toHaveBeenCalledTimes(1);
  });
});

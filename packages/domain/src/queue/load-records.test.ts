import { describe, expect, it } from "vitest";
import { LoadRecordsUseCase } from "../use-cases/annotation/load-records.js";
import { GetRecordsByCriteriaUseCase } from "../use-cases/annotation/get-records-by-criteria.js";
import { PageCriteria, RecordCriteria } from "../criteria/record-criteria.js";
import { RecordsQueue } from "./records-queue.js";
import { DatasetRecord } from "../entities/record.js";
import { FakeRecords, fakeFields, fakeQuestions } from "../testing/fake-repositories.js";
import { FIELDS, QUESTIONS, recordProps, response } from "../testing/fixtures.js";

function setup(n: number) {
  const records = FakeRecords.withCount(n);
  const questions = fakeQuestions();
  const get = new GetRecordsByCriteriaUseCase(records, questions, fakeFields());
  return { records, questions, get, uc: new LoadRecordsUseCase(get) };
}
const criteria = (page = 1, mode: "focus" | "bulk" = "focus", size = 10) => new RecordCriteria({ datasetId: "d1", page: new PageCriteria(page, mode, size) });

describe("records queue (spec section 4)", () => {
  it("fetches records, questions and fields in parallel and numbers records by queue page", async () => {
    const { uc, records, questions } = setup(30);
    const c = criteria();
    const queue = await uc.load(c);
    expect(records.requests[0]).toMatchObject({ datasetId: "d1", offset: 0, limit: 10 });
    expect(questions.calls).toBe(1);
    expect(queue.records.map((r) => r.page)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(queue.total).toBe(30);
    expect(queue.recordAt(1)?.questions).toHaveLength(Object.keys(QUESTIONS).length);
  });

  it("prefetches a buffer when the records ahead are at or below the buffer size, one load at a time", async () => {
    const { uc, records } = setup(30);
    const c = criteria();
    const queue = await uc.load(c);
    for (let i = 0; i < 3; i++) { c.page.next(); await uc.paginate(c, queue); }
    expect(records.requests).toHaveLength(1); // page 4: 6 records ahead, above the buffer of 5
    c.page.next(); // page 5: 5 ahead, at the buffer size
    let release!: () => void;
    records.gate = new Promise((r) => { release = r; });
    await uc.paginate(c, queue);
    expect(queue.isBuffering).toBe(true);
    c.page.next();
    await uc.paginate(c, queue); // a second paginate while buffering starts no other load
    expect(records.requests).toHaveLength(2);
    expect(records.requests[1]).toMatchObject({ offset: 10, limit: 10 });
    release();
    await uc.whenBuffered();
    expect(queue.isBuffering).toBe(false);
    expect(queue.records).toHaveLength(20);
    expect(queue.lastRecord?.page).toBe(20);
  });

  it("corrects the buffer offset for records that left the status filter", () => {
    const c = criteria();
    const recs = Array.from({ length: 10 }, (_, i) => new DatasetRecord(recordProps(`r${i + 1}`), [], FIELDS, i + 1));
    recs[0]!.answerSaved(response("submitted", {}));
    recs[1]!.answerSaved(response("discarded", {}));
    const queue = new RecordsQueue(recs, 30);
    expect(queue.bufferWindow(c)).toEqual({ from: 9, many: 10, queuePage: 11 });
  });

  it("does not buffer when filtering by similarity, paging backward, or at the end", async () => {
    const c = criteria(8);
    const recs = Array.from({ length: 10 }, (_, i) => new DatasetRecord(recordProps(`r${i + 1}`), [], FIELDS, i + 1));
    const queue = new RecordsQueue(recs, 30);
    expect(queue.shouldBuffer(c)).toBe(true);
    c.page.direction = "backward";
    expect(queue.shouldBuffer(c)).toBe(false);
    c.page.direction = "forward";
    c.similarity = { recordId: "r1", vectorName: "v", limit: 10, order: "most" };
    expect(queue.shouldBuffer(c)).toBe(false);
    c.similarity = null;
    expect(new RecordsQueue(recs, 10).shouldBuffer(c)).toBe(false);
    expect(new RecordsQueue([], 10).shouldBuffer(c)).toBe(false);
    expect(queue.shouldBuffer(criteria(2))).toBe(false);
  });

  it("backward paging in focus fetches one record; bulk fetches a page", () => {
    const queue = new RecordsQueue([], 100);
    const focus = criteria(5);
    focus.page.previous();
    expect(queue.windowFor(focus)).toEqual({ from: 4, many: 1, queuePage: 4 });
    const bulk = criteria(41, "bulk", 20);
    bulk.page.previous();
    expect(queue.windowFor(bulk)).toEqual({ from: 21, many: 20, queuePage: 21 });
  });

  it("similarity loads from 1 with the similarity limit in one go and resolves the reference record", async () => {
    const { uc, records } = setup(30);
    records.byId = [recordProps("ref")];
    const c = criteria();
    c.similarity = { recordId: "ref", vectorName: "v", limit: 25, order: "most" };
    const queue = await uc.load(c);
    expect(records.requests[0]).toMatchObject({ offset: 0, limit: 25 });
    expect(queue.records).toHaveLength(25);
    expect(queue.reference?.id).toBe("ref");
    expect(records.requests).toHaveLength(1);
  });

  it("takes the similarity reference from the queue when it is there", async () => {
    const { get, records } = setup(30);
    const existing = new DatasetRecord(recordProps("r3"), [], FIELDS, 3);
    const c = criteria();
    c.similarity = { recordId: "r3", vectorName: "v", limit: 5, order: "most" };
    records.getById = async () => { throw new Error("should not fetch"); };
    const page = await get.execute(c, { from: 1, many: 5, queuePage: 1 }, new RecordsQueue([existing], 30));
    expect(page.reference).toBe(existing);
    const q2 = new RecordsQueue([], 30, existing);
    expect((await get.execute(c, { from: 1, many: 5, queuePage: 1 }, q2)).reference).toBe(existing);
  });

  it("falls back to the first page when the target page has no record", async () => {
    const { uc, records } = setup(3);
    const c = criteria(50);
    const queue = await uc.load(c);
    expect(c.page.page).toBe(1);
    expect(records.requests.map((r) => r.offset)).toEqual([49, 0]);
    expect(queue.recordAt(1)?.id).toBe("r1");
  });

  it("paginates into pages that are not in the queue, and reports empty pages", async () => {
    const { uc, records } = setup(30);
    const c = criteria(1, "bulk", 10);
    const queue = await uc.load(c);
    await uc.whenBuffered();
    expect(queue.records).toHaveLength(20);
    c.page.goTo(25);
    expect(await uc.paginate(c, queue)).toBe(true);
    c.page.goTo(100);
    expect(await uc.paginate(c, queue)).toBe(false);
    expect(records.requests.length).toBeGreaterThanOrEqual(3);
  });

  it("ignores errors while prefetching the buffer", async () => {
    const { uc, records } = setup(30);
    const c = criteria(1, "bulk", 10);
    records.failNext = false;
    const queue = await uc.load(c);
    await uc.whenBuffered();
    records.failNext = true;
    c.page.next();
    await uc.paginate(c, queue);
    await expect(uc.whenBuffered()).resolves.toBeUndefined();
    expect(queue.isBuffering).toBe(false);
  });

  it("keeps the queue sorted by page and upserts by id", () => {
    const a = new DatasetRecord(recordProps("a"), [], FIELDS, 2);
    const b = new DatasetRecord(recordProps("b"), [], FIELDS, 1);
    const queue = new RecordsQueue([a, b], 2);
    expect(queue.records.map((r) => r.id)).toEqual(["b", "a"]);
    queue.append([new DatasetRecord(recordProps("a"), [], FIELDS, 2)]);
    expect(queue.records).toHaveLength(2);
    expect(queue.firstRecord?.id).toBe("b");
    expect(queue.isEmpty).toBe(false);
  });
});

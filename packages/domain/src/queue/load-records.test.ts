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
const criteria = (page = 1, mode: "focus" | "bulk" = "focus", size = 10) =>
  new RecordCriteria({ datasetId: "d1", page: new PageCriteria(page, mode, size) });

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
    for (let i = 0; i < 3; i++) {
      c.page.next();
      await uc.paginate(c, queue);
    }
    expect(records.requests).toHaveLength(1); // page 4: 6 records ahead, above the buffer of 5
    c.page.next(); // page 5: 5 ahead, at the buffer size
    let release!: () => void;
    records.gate = new Promise((r) => {
      release = r;
    });
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
    records.getById = async () => {
      throw new Error("should not fetch");
    };
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

  it("stays bounded over thousands of records, and the offset correction survives the dropped records", async () => {
    const { uc, records } = setup(3000);
    const c = criteria();
    c.status = "pending";
    const queue = await uc.load(c);
    await uc.whenBuffered();
    let largest = 0;
    for (let i = 1; i <= 2500; i++) {
      const record = queue.recordsOn(c)[0]!;
      expect(record.id).toBe(`r${i}`); // no record skipped or shown twice
      if (i % 3 !== 0) {
        // answer two records out of three (they leave the pending result set); skip the third
        const saved = response(i % 3 === 1 ? "submitted" : "discarded", {}, `resp-${i}`, record.id);
        record.answerSaved(saved);
        records.store[i - 1] = { ...records.store[i - 1]!, response: saved };
      }
      c.page.next();
      await uc.paginate(c, queue);
      await uc.whenBuffered();
      largest = Math.max(largest, queue.records.length);
    }
    expect(largest).toBeLessThanOrEqual(2 * 10 + 1 + 2 * 10 + 5);
    expect(records.requests.length).toBeLessThan(300); // one buffer of 10 per 10 records, no refetching
    // paging back past the kept window fetches the record again, with the corrected offset
    c.page.goTo(99);
    expect(await uc.paginate(c, queue)).toBe(true);
    expect(queue.recordsOn(c)[0]?.id).toBe("r99"); // skipped, still pending: the 33rd pending record
    expect(records.requests.at(-1)).toMatchObject({ offset: 32, limit: 1 });
    expect(queue.records.length).toBeLessThanOrEqual(2 * 10 + 1 + 2 * 10 + 5);
  });

  it("keeps similarity results whole and drops records ahead of a backward jump", () => {
    const recs = Array.from({ length: 60 }, (_, i) => new DatasetRecord(recordProps(`r${i + 1}`), [], FIELDS, i + 1));
    const similar = criteria(50);
    similar.similarity = { recordId: "r1", vectorName: "v", limit: 60, order: "most" };
    const queue = new RecordsQueue(recs, 60);
    queue.retain(similar);
    expect(queue.records).toHaveLength(60);
    const c = criteria(60);
    c.page.goTo(2);
    queue.retain(c);
    expect(queue.firstRecord?.page).toBe(1);
    expect(queue.lastRecord?.page).toBe(2 + 20 + 5);
    queue.retain(c); // already within the window: nothing to drop
    expect(queue.records).toHaveLength(27);
    queue.append([new DatasetRecord(recordProps("r40"), [], FIELDS, 40)]);
    expect(queue.recordAt(40)?.id).toBe("r40");
  });

  it("buffers exactly while responses are on their way, whether or not the server has handled them", async () => {
    for (const handled of [false, true]) {
      const { uc, records } = setup(40);
      const c = criteria();
      const queue = await uc.load(c);
      for (let i = 1; i <= 5; i++) {
        // five submits in flight: the records are still pending locally
        const record = queue.recordsOn(c)[0]!;
        queue.saving(record.id);
        if (handled) records.store[i - 1] = { ...records.store[i - 1]!, response: response("submitted", {}, `resp-${i}`, record.id) };
        c.page.next();
        await uc.paginate(c, queue);
      }
      await uc.whenBuffered();
      // the buffer started on page 5 with r1..r4 in flight: from the 7th record, 10 + 4
      expect(records.requests.at(-1)).toMatchObject({ offset: 6, limit: 14 });
      const expected = handled ? 24 : 20; // r11..r24 new, or r7..r20 of which r7..r10 already queued
      expect(queue.records.map((r) => r.id)).toEqual(Array.from({ length: expected }, (_, i) => `r${i + 1}`));
      expect(queue.records.map((r) => r.page)).toEqual(Array.from({ length: expected }, (_, i) => i + 1));
      for (let i = 1; i <= 5; i++) {
        // the responses land
        const record = queue.recordAt(i)!;
        record.answerSaved(response("submitted", {}, `resp-${i}`, record.id));
        records.store[i - 1] = { ...records.store[i - 1]!, response: record.answer };
        queue.settled(record.id);
      }
      expect(queue.bufferWindow(c)).toEqual({ from: handled ? 20 : 16, many: 10, queuePage: handled ? 25 : 21 });
    }
  });

  it("paging into the buffer on its way waits for it instead of loading the page again", async () => {
    const { uc, records } = setup(40);
    const c = criteria();
    const queue = await uc.load(c);
    let release!: () => void;
    records.gate = new Promise((r) => {
      release = r;
    });
    c.page.goTo(5);
    await uc.paginate(c, queue); // starts the buffer (pages 11..20)
    c.page.goTo(12);
    const paging = uc.paginate(c, queue);
    release();
    expect(await paging).toBe(true);
    expect(queue.recordsOn(c)[0]?.id).toBe("r12");
    expect(records.requests.map((r) => r.offset)).toEqual([0, 10]);
  });
});

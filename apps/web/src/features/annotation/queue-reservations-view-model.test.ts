import { describe, expect, it, vi } from "vitest";
import { DatasetRecord, RecordsQueue, type QueueReservations } from "@tessera/domain";
import { QueueReservationsViewModel, type QueueHost } from "./queue-reservations-view-model";
import { FIELDS, QUESTIONS, recordProps } from "./test-fixtures";

const held = (records: number, teammates: number, ttlSeconds = 300): QueueReservations => ({
  expiresAt: "2026-01-01T00:05:00Z",
  ttlSeconds,
  heldByOthers: { records, teammates },
});

function setup(reservations: QueueReservations | null, pendingRecords = 0) {
  const records = Array.from({ length: pendingRecords }, (_, i) => new DatasetRecord(recordProps(i + 1), QUESTIONS, FIELDS, i + 1));
  const queue = new RecordsQueue(records, pendingRecords);
  queue.reservations = reservations;
  const host: QueueHost & { loads: number } = {
    datasetId: "d",
    queue,
    loading: false,
    revision: 0,
    loads: 0,
    load: async () => {
      host.loads++;
    },
  };
  let clock = 1_000_000;
  const renew = vi.fn(async () => undefined);
  const release = vi.fn(async () => undefined);
  const vm = new QueueReservationsViewModel(host, { renew: { execute: renew }, release: { execute: release } }, () => clock);
  return {
    vm,
    host,
    renew,
    release,
    advance: (ms: number) => {
      clock += ms;
    },
  };
}

describe("QueueReservationsViewModel", () => {
  it("is starved when teammates hold every record left and no pending record is in the queue", () => {
    expect(setup(held(3, 2)).vm.starvedBy).toBe(2);
    expect(setup(held(3, 2), 1).vm.starvedBy).toBe(0); // a record of its own to work on
    expect(setup(held(0, 0)).vm.starvedBy).toBe(0); // the task is done, nobody holds anything
    expect(setup(null).vm.starvedBy).toBe(0); // a queue that does not reserve (filters, other statuses)
  });

  it("looks again while starved, so records come back as reservations expire", async () => {
    const { vm, host, renew } = setup(held(3, 2));
    await vm.tick();
    await vm.tick();
    expect(host.loads).toBe(2);
    expect(renew).not.toHaveBeenCalled();
  });

  it("renews within a third of the time-out, only after the annotator did something", async () => {
    const { vm, renew, advance } = setup(held(0, 0, 30), 2);
    advance(11_000);
    await vm.tick();
    expect(renew).not.toHaveBeenCalled(); // idle: the reservations are let go at the time-out
    vm.activity();
    await vm.tick();
    expect(renew).toHaveBeenCalledWith("d");
    advance(5_000);
    vm.activity();
    await vm.tick();
    expect(renew).toHaveBeenCalledTimes(1); // not due yet
    advance(6_000);
    await vm.tick();
    expect(renew).toHaveBeenCalledTimes(2);
  });

  it("gives the records back once when the annotator leaves, also from a filtered queue (the plain one may have reserved before)", () => {
    const { vm, release } = setup(held(0, 0), 2);
    vm.leave();
    vm.leave();
    expect(release).toHaveBeenCalledTimes(1);
    const filtered = setup(null, 2);
    filtered.vm.leave();
    expect(filtered.release).toHaveBeenCalledWith("d");
  });
});

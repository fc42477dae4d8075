import { describe, expect, it } from "vitest";
import { RecordCriteria, type DownloadScope, type ExportFormat } from "@tessera/domain";
import { DownloadViewModel } from "./download-view-model";

describe("DownloadViewModel", () => {
  it("downloads with the criteria on screen at the time, the chosen format and scope", async () => {
    const calls: [string, ExportFormat, DownloadScope][] = [];
    let criteria = new RecordCriteria({ datasetId: "d", status: "pending" });
    const vm = new DownloadViewModel(
      {
        execute: async (c, f, s) => {
          calls.push([c.status, f, s]);
          return { filename: "d.csv", bytes: 3 };
        },
      },
      () => criteria,
    );
    vm.show();
    vm.setFormat("csv");
    criteria = new RecordCriteria({ datasetId: "d", status: "submitted" });
    await vm.start();
    expect(calls).toEqual([["submitted", "csv", "filtered"]]);
    expect(vm.done).toEqual({ filename: "d.csv", bytes: 3 });
    vm.setScope("all");
    vm.setFormat("parquet");
    await vm.start();
    expect(calls[1]).toEqual(["submitted", "parquet", "all"]);
  });

  it("shows a failure and can be tried again", async () => {
    let fail = true;
    const vm = new DownloadViewModel(
      {
        execute: async () => {
          if (fail) throw new Error("403");
          return { filename: "x", bytes: 0 };
        },
      },
      () => new RecordCriteria({ datasetId: "d" }),
    );
    await vm.start();
    expect(vm).toMatchObject({ failed: true, busy: false, done: null });
    fail = false;
    await vm.start();
    expect(vm).toMatchObject({ failed: false, done: { filename: "x", bytes: 0 } });
  });
});

import { describe, expect, it } from "vitest";
import { byGeneratorIndex } from "./kept-records.ts";

describe("a kept dataset's record ids by the generator's index", () => {
  it("orders the ids by their external id's index, whatever the rows' order, and ignores other records", () => {
    expect(
      byGeneratorIndex([
        ["c", "bench-2"],
        ["a", "bench-0"],
        ["x", "uploaded-7"],
        ["b", "bench-1"],
        ["y", null],
      ]),
    ).toEqual(["a", "b", "c"]);
    expect(byGeneratorIndex([])).toEqual([]);
  });

  it("refuses a dataset with a gap (a record of the generator deleted): recall would compare other records", () => {
    expect(() =>
      byGeneratorIndex([
        ["a", "bench-0"],
        ["c", "bench-2"],
      ]),
    ).toThrow("record bench-1 is missing from the kept dataset");
  });
});

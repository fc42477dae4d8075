import { describe, expect, it } from "vitest";
import { summarizeHeapSnapshot, type HeapSnapshot } from "./web.ts";

/** A snapshot in V8's layout: nodes are flat rows of node_fields, types and names are indexes. */
function snapshot(rows: [type: string, name: string, selfSize: number][]): HeapSnapshot {
  const types = ["hidden", "array", "string", "object", "code", "closure", "regexp", "number", "native"];
  const strings: string[] = [];
  const nodes = rows.flatMap(([type, name, size], id) => {
    if (!strings.includes(name)) strings.push(name);
    return [types.indexOf(type), strings.indexOf(name), id, size, 0, 0, 0];
  });
  return {
    snapshot: {
      meta: {
        node_fields: ["type", "name", "id", "self_size", "edge_count", "trace_node_id", "detachedness"],
        node_types: [types, "string"],
      },
    },
    nodes,
    strings,
  };
}

describe("heap snapshot composition", () => {
  it("sums self sizes into code, native and the rest, and counts functions and regexps", () => {
    const summary = summarizeHeapSnapshot(
      snapshot([
        ["code", "system / SharedFunctionInfo / render", 40],
        ["code", "system / SharedFunctionInfo", 40],
        ["code", "system / InstructionStream", 2000],
        ["code", "system / Code", 72],
        ["regexp", "\\bword\\b", 24],
        ["regexp", "^#+ ", 24],
        ["closure", "render", 32],
        ["object", "Object", 100],
        ["native", "HTMLDivElement", 500],
      ]),
    );
    expect(summary).toEqual({ codeBytes: 2152, nativeBytes: 500, jsBytes: 180, functions: 2, regexps: 2 });
  });
});

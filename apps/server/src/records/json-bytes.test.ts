import { describe, expect, it } from "vitest";
import { JsonBytes } from "./json-bytes.js";

describe("JSON written as bytes", () => {
  it("grows past its first buffer and keeps every byte written before, in UTF-8", () => {
    const out = new JsonBytes(4);
    const parts = ['{"a":', JSON.stringify("naïve — 日本 😀"), ",", '"b":[', "1".repeat(10_000), "]}"];
    for (const part of parts) out.text(part);
    expect(out.bytes().toString("utf8")).toBe(parts.join(""));
    expect(out.length).toBe(Buffer.byteLength(parts.join("")));
  });

  it("takes bytes written into its reserved room", () => {
    const out = new JsonBytes(2);
    out.text("[");
    const buffer = out.reserve(3);
    buffer.write("1,2", out.length, "latin1");
    out.advance(3);
    out.text("]");
    expect(out.bytes().toString("utf8")).toBe("[1,2]");
  });
});

import { describe, expect, it } from "vitest";
import { metadataValueViolation, type MetadataRuleSettings } from "./metadata-value-rules.js";

const terms: MetadataRuleSettings = { type: "terms", values: ["a", "b", 3, true] };
const anyTerm: MetadataRuleSettings = { type: "terms" };
const integer: MetadataRuleSettings = { type: "integer", min: 0, max: 10 };
const float: MetadataRuleSettings = { type: "float", min: null, max: 1.5 };

describe("metadata value rules", () => {
  it.each([
    [terms, "a"],
    [terms, ["a", "b"]],
    [terms, 3],
    [terms, true],
    [anyTerm, "anything"],
    [anyTerm, ["x", 1, false]],
    [integer, 0],
    [integer, 10],
    [float, -1e9],
    [float, 1.5],
    [float, 1],
  ])("accepts %j with %j", (settings, value) => {
    expect(metadataValueViolation(settings, value)).toBeNull();
  });

  it.each([
    [terms, "c", "terms.notAllowed"],
    [terms, ["a", "c"], "terms.notAllowed"],
    [anyTerm, { a: 1 }, "terms.notATerm"],
    [anyTerm, [["nested"]], "terms.notATerm"],
    [anyTerm, null, "terms.notATerm"],
    [anyTerm, Number.NaN, "metadata.notANumber"],
    [integer, 1.5, "number.wrongType"],
    [integer, "3", "number.wrongType"],
    [integer, -1, "number.outOfRange"],
    [integer, 11, "number.outOfRange"],
    [integer, Number.POSITIVE_INFINITY, "metadata.notANumber"],
    [float, 2, "number.outOfRange"],
    [float, "1.0", "number.wrongType"],
  ])("refuses %j with %j (%s)", (settings, value, kind) => {
    expect(metadataValueViolation(settings, value)?.kind).toBe(kind);
  });

  it("reports the bounds of an out-of-range number, null where unset", () => {
    expect(metadataValueViolation(float, 3)).toEqual({ kind: "number.outOfRange", value: 3, min: null, max: 1.5 });
  });
});

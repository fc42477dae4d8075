import { describe, expect, it } from "vitest";
import { answerViolation, minSubmittedOf, recordStatusFor } from "./answer-rules.js";
import { duplicateOptionValues, questionSettingsViolations, visibleOptionsViolation } from "./question-settings-rules.js";

const label = { type: "label_selection" as const, optionValues: ["yes", "no"] };
const ranking = { type: "ranking" as const, optionValues: ["a", "b"] };
const span = { type: "span" as const, optionValues: ["per"], spanField: "text", allowOverlapping: false };

describe("answer rules (spec section 4, contract 3.11)", () => {
  it("names the first rule an answer breaks", () => {
    expect(answerViolation({ type: "text", optionValues: [] }, " \n", { status: "submitted" })).toEqual({ kind: "text.empty" });
    expect(answerViolation(label, "maybe", { status: "submitted" })).toEqual({
      kind: "label.notAnOption",
      value: "maybe",
      allowed: ["yes", "no"],
    });
    expect(answerViolation(label, "yes", { status: "submitted" })).toBeNull();
  });

  it("wants a whole ranking only when submitted", () => {
    const partial = [{ value: "a", rank: 1 }];
    expect(answerViolation(ranking, partial, { status: "submitted" })).toEqual({ kind: "ranking.incomplete", expected: 2, found: 1 });
    expect(answerViolation(ranking, partial, { status: "draft" })).toBeNull();
    expect(
      answerViolation(
        ranking,
        [
          { value: "a", rank: 1 },
          { value: "b", rank: 3 },
        ],
        { status: "submitted" },
      ),
    ).toMatchObject({ kind: "ranking.rankOutOfRange", rank: 3 });
  });

  it("checks spans against the text when it is known, and overlaps unless allowed", () => {
    expect(answerViolation(span, [{ label: "per", start: 0, end: 9 }], { status: "submitted", fieldText: "Ada" })).toEqual({
      kind: "span.endBeyondText",
      field: "text",
      length: 3,
    });
    expect(answerViolation(span, [{ label: "per", start: 0, end: 9 }], { status: "submitted" })).toBeNull();
    expect(answerViolation(span, [], { status: "submitted", fieldText: null })).toEqual({ kind: "span.noFieldText", field: "text" });
    const overlapping = [
      { label: "per", start: 0, end: 3 },
      { label: "per", start: 2, end: 4 },
    ];
    expect(answerViolation(span, overlapping, { status: "submitted" })).toEqual({ kind: "span.overlapping", first: 0, second: 1 });
    expect(answerViolation({ ...span, allowOverlapping: true }, overlapping, { status: "submitted" })).toBeNull();
  });

  it("completes a record at min_submitted submitted responses", () => {
    expect([recordStatusFor(0, 2), recordStatusFor(1, 2), recordStatusFor(2, 2), recordStatusFor(1, 0)]).toEqual([
      "pending",
      "pending",
      "completed",
      "completed",
    ]);
    expect([
      minSubmittedOf({ min_submitted: 3 }),
      minSubmittedOf({ minSubmitted: 2 }),
      minSubmittedOf({}),
      minSubmittedOf("x"),
      minSubmittedOf({ min_submitted: 0 }),
    ]).toEqual([3, 2, 1, 1, 1]);
  });
});

describe("question settings rules (contract 3.6)", () => {
  it("counts options per type and finds duplicates", () => {
    expect(questionSettingsViolations({ type: "span", field: "text", options: [{ value: "a", text: "A" }] })).toEqual([]);
    expect(questionSettingsViolations({ type: "label_selection", options: [{ value: "a", text: "A" }] })).toEqual([
      { kind: "options.tooFew", min: 2, found: 1 },
    ]);
    expect(questionSettingsViolations({ type: "rating", options: [{ value: 1 }, { value: 1 }] })).toEqual([
      { kind: "options.duplicateValues", duplicates: [1] },
    ]);
    expect(duplicateOptionValues(["a", "b", "a", "b", "c"])).toEqual(["a", "b"]);
  });

  it("bounds visible_options by the minimum and the option count", () => {
    expect(visibleOptionsViolation(null, 2)).toBeNull();
    expect(visibleOptionsViolation(2, 5)).toEqual({ kind: "visibleOptions.tooSmall", min: 3 });
    expect(visibleOptionsViolation(6, 5)).toEqual({ kind: "visibleOptions.overOptions", count: 5 });
  });
});

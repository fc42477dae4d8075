import { describe, expect, it } from "vitest";
import { disagreeingRecordIds, disagreementsOf, disagreesOn, reviewProgress } from "./disagreement.js";
import { questionAgreement } from "./question-agreement.js";
import { mayReview } from "./review-policy.js";

const label = { name: "label", type: "label_selection" as const };
const topics = { name: "topics", type: "multi_label_selection" as const };

describe("disagreement", () => {
  it("two or more answers that are not all equal disagree", () => {
    expect(
      disagreesOn(label, [
        { userId: "a", values: { label: "pos" } },
        { userId: "b", values: { label: "neg" } },
      ]),
    ).toBe(true);
    expect(
      disagreesOn(label, [
        { userId: "a", values: { label: "pos" } },
        { userId: "b", values: { label: "pos" } },
      ]),
    ).toBe(false);
  });
  it("a single answer, or an unanswered question, is no disagreement", () => {
    expect(
      disagreesOn(label, [
        { userId: "a", values: { label: "pos" } },
        { userId: "b", values: {} },
      ]),
    ).toBe(false);
  });
  it("label order inside a multi-label answer does not matter", () => {
    expect(
      disagreesOn(topics, [
        { userId: "a", values: { topics: ["x", "y"] } },
        { userId: "b", values: { topics: ["y", "x"] } },
      ]),
    ).toBe(false);
  });
  it("lists the questions a record disagrees on, or only the chosen one", () => {
    const responses = [
      { userId: "a", values: { label: "pos", topics: ["x"] } },
      { userId: "b", values: { label: "neg", topics: ["y"] } },
    ];
    expect(disagreementsOf([label, topics], responses)).toEqual(["label", "topics"]);
    expect(disagreementsOf([label, topics], responses, "topics")).toEqual(["topics"]);
  });
  it("review progress: reviewed of those disagreeing or already reviewed", () => {
    expect(
      reviewProgress([
        { disagrees: true, hasFinalAnswer: false },
        { disagrees: true, hasFinalAnswer: true },
        { disagrees: false, hasFinalAnswer: true },
        { disagrees: false, hasFinalAnswer: false },
      ]),
    ).toEqual({ reviewed: 2, needingReview: 3 });
  });
  it("only owners and admins may review", () => {
    expect(mayReview("owner")).toBe(true);
    expect(mayReview("admin")).toBe(true);
    expect(mayReview("annotator")).toBe(false);
  });
});

describe("disagreeingRecordIds", () => {
  it("lists the records whose answers differ, as questionAgreement reports them", () => {
    const records = [
      {
        recordId: "a",
        answers: [
          { userId: "u1", value: "pos" },
          { userId: "u2", value: "neg" },
        ],
      },
      {
        recordId: "b",
        answers: [
          { userId: "u1", value: "pos" },
          { userId: "u2", value: "pos" },
        ],
      },
      { recordId: "c", answers: [{ userId: "u1", value: "neg" }] },
    ];
    expect(disagreeingRecordIds("label_selection", records)).toEqual(["a"]);
    expect(questionAgreement({ name: "label", type: "label_selection" }, records).disagreeing).toEqual(["a"]);
  });
});

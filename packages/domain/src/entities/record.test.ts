import { describe, expect, it } from "vitest";
import { DatasetRecord, RecordScore } from "./record.js";
import { normalizeFieldContent, Field } from "./field.js";
import { FIELDS, QUESTIONS, recordProps, response } from "../testing/fixtures.js";

const all = Object.values(QUESTIONS);
const suggestions = [
  { id: "s1", questionId: "q-label", value: "negative", score: 0.9, agent: "m" },
  { id: "s2", questionId: "q-span", value: [{ start: 0, end: 4, label: "PER" }], score: [0.5], agent: "m" },
];

describe("DatasetRecord", () => {
  it("a pending record is prefilled from suggestions", () => {
    const r = new DatasetRecord(recordProps("r1", { suggestions }), all, FIELDS, 1);
    r.initialize();
    expect(r.status).toBe("pending");
    expect(r.question("label")?.answer.value).toBe("negative");
    expect(r.question("span")?.answer.value).toEqual([{ start: 0, end: 4, label: "PER" }]);
    expect(r.question("label")?.suggestion?.questionType).toBe("label_selection");
    expect(r.isModified).toBe(false);
  });
  it("in bulk mode suggestions are dropped unless the question is a span question", () => {
    const r = new DatasetRecord(recordProps("r1", { suggestions }), all, FIELDS, 1);
    r.initialize(true);
    expect(r.question("label")?.answer.value).toBeNull();
    expect(r.question("span")?.answer.value).toEqual([{ start: 0, end: 4, label: "PER" }]);
  });
  it("other records are filled from the saved answer, not the suggestions", () => {
    const r = new DatasetRecord(
      recordProps("r1", { suggestions, response: response("draft", { label: "positive", text: "hi" }) }),
      all,
      FIELDS,
      1,
    );
    r.initialize();
    expect(r.status).toBe("draft");
    expect(r.isDraft).toBe(true);
    expect(r.question("label")?.answer.value).toBe("positive");
    expect(r.question("text")?.answer.value).toBe("hi");
    expect(r.question("span")?.answer.value).toEqual([]);
  });
  it("tracks changes against the baseline; reset restores it and clear empties every answer", () => {
    const r = new DatasetRecord(recordProps("r1"), all, FIELDS, 1);
    r.initialize();
    r.question("label")?.answer.set("positive");
    expect(r.isModified).toBe(true);
    r.reset();
    expect(r.isModified).toBe(false);
    expect(r.question("label")?.answer.value).toBeNull();
    r.question("text")?.answer.set("x");
    r.clear();
    expect(r.question("text")?.answer.value).toBe("");
    expect(r.hasAnyAnswer).toBe(false);
  });
  it("needs required questions answered and optional ones valid", () => {
    const r = new DatasetRecord(recordProps("r1"), all, FIELDS, 1);
    r.initialize();
    expect(r.questionsAreCompletedCorrectly).toBe(false);
    r.question("label")?.answer.set("positive");
    expect(r.questionsAreCompletedCorrectly).toBe(true);
    r.question("ranking")?.answer.set([{ value: "x", rank: 1 }]);
    expect(r.questionsAreCompletedCorrectly).toBe(false);
  });
  it("sends only valid answers on submit and partial rankings on drafts", () => {
    const r = new DatasetRecord(recordProps("r1"), all, FIELDS, 1);
    r.initialize();
    r.question("label")?.answer.set("positive");
    r.question("ranking")?.answer.set([{ value: "y", rank: 1 }]);
    expect(r.valuesFor("submitted")).toEqual({ label: "positive", span: [] });
    expect(r.valuesFor("draft")).toEqual({ label: "positive", span: [], ranking: [{ value: "y", rank: 1 }] });
  });
  it("stores a saved answer and resets the baseline; markPending returns it to pending", () => {
    const r = new DatasetRecord(recordProps("r1"), all, FIELDS, 1);
    r.initialize();
    r.question("label")?.answer.set("positive");
    r.answerSaved(response("submitted", { label: "positive" }));
    expect(r.isSubmitted).toBe(true);
    expect(r.isModified).toBe(false);
    r.markPending();
    expect(r.isPending).toBe(true);
    expect(r.question("label")?.answer.value).toBeNull();
  });
  it("copies answers from another record (bulk form)", () => {
    const a = new DatasetRecord(recordProps("a"), all, FIELDS, 1);
    const b = new DatasetRecord(recordProps("b"), all, FIELDS, 2);
    a.question("multi")?.answer.set(["a", "c"]);
    b.answerWith(a);
    expect(b.question("multi")?.answer.value).toEqual(["a", "c"]);
  });
  it("score is a percentage with 1 decimal; negative means none", () => {
    expect(new RecordScore(0.87654).percentage).toBe(87.7);
    expect(new RecordScore(-1).hasScore).toBe(false);
    expect(new RecordScore(-1).percentage).toBe(-1);
    const r = new DatasetRecord(
      recordProps("r1", { queryScore: 0.5, taskStatus: "completed", response: response("discarded", {}) }),
      all,
      FIELDS,
      3,
    );
    expect(r.score.percentage).toBe(50);
    expect(r.isCompleted).toBe(true);
    expect(r.isDiscarded).toBe(true);
    expect(r.page).toBe(3);
    expect(new DatasetRecord(recordProps("r2"), all, FIELDS, 1).score.hasScore).toBe(false);
  });
  it("maps fields by name: chat strings become a user message, images from src, custom templates", () => {
    const r = new DatasetRecord(recordProps("r1"), all, FIELDS, 1);
    expect(r.field("text")?.content).toBe("text of r1");
    expect(r.field("chat")?.content).toEqual([{ role: "user", content: "hello" }]);
    expect(r.field("image")?.content).toBe("http://img/x.png");
    expect(r.field("custom")?.content).toEqual({ a: 1 });
    expect(r.field("custom")?.field.template).toBe("<b>{{record.fields.text}}</b>");
    expect(normalizeFieldContent("chat", [{ role: "assistant", content: "hey" }, {}])).toEqual([
      { role: "assistant", content: "hey" },
      { role: "user", content: "" },
    ]);
    expect(normalizeFieldContent("chat", 3)).toEqual([]);
    expect(normalizeFieldContent("image", "data:image/png;base64,xx")).toBe("data:image/png;base64,xx");
    expect(normalizeFieldContent("image", null)).toBe("");
    expect(normalizeFieldContent("text", null)).toBe("");
    expect(normalizeFieldContent("text", { a: 1 })).toBe('{"a":1}');
  });
});

describe("Field settings", () => {
  it("validates the title (500), reverts and commits, and uses the name when the title is empty", () => {
    const f = new Field(FIELDS[0]!);
    expect([f.isText, f.isChat, f.isImage, f.isCustom, f.useMarkdown]).toEqual([true, false, false, false, false]);
    f.title = "x".repeat(501);
    expect(f.validate().title.map((m) => m.text)).toEqual(["This must be less than 500."]);
    expect(f.isValid).toBe(false);
    f.restore();
    expect(f.title).toBe("Text");
    f.title = "";
    expect(f.titleForUpdate).toBe("text");
    f.settings.use_markdown = true;
    expect(f.isModified).toBe(true);
    f.commit("2026-03-03");
    expect(f.isModified).toBe(false);
    expect(f.toProps().updatedAt).toBe("2026-03-03");
  });
});

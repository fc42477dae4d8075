import { describe, expect, it } from "vitest";
import { Question, QuestionAnswer, validateQuestionOptions } from "./question.js";
import { Suggestion } from "./suggestion.js";
import { colorForLabel, hashText, isHslColor, withSaturationLightness } from "./color.js";
import { assertQuestionType, isQuestionType } from "./question-type.js";
import { QUESTIONS, opts, question } from "../testing/fixtures.js";

describe("answer validity (spec section 4)", () => {
  it("text is valid only when non-empty", () => {
    const q = new Question(QUESTIONS.text);
    expect(q.answer.isValid).toBe(false);
    q.answer.set("   ");
    expect(q.answer.isValid).toBe(false);
    q.answer.set("ok");
    expect(q.answer.isValid).toBe(true);
  });
  it("single label, rating and multi-label need a selection", () => {
    const label = new Question(QUESTIONS.label);
    const rating = new Question(QUESTIONS.rating);
    const multi = new Question(QUESTIONS.multi);
    expect([label.answer.isValid, rating.answer.isValid, multi.answer.isValid]).toEqual([false, false, false]);
    label.answer.set("positive");
    rating.answer.set(1);
    multi.answer.set(["a"]);
    expect([label.answer.isValid, rating.answer.isValid, multi.answer.isValid]).toEqual([true, true, true]);
    multi.answer.set([]);
    expect(multi.answer.isValid).toBe(false);
    // The server's rule, from the same domain function: a value that is not an option is no answer.
    label.answer.set("neutral");
    rating.answer.set(0);
    multi.answer.set(["a", "z"]);
    expect([label.answer.isValid, rating.answer.isValid, multi.answer.isValid]).toEqual([false, false, false]);
  });
  it("span is always valid", () => {
    const q = new Question(QUESTIONS.span);
    expect(q.answer.isValid).toBe(true);
    expect(q.answer.isAnswered).toBe(false);
    q.answer.set([{ start: 0, end: 2, label: "PER" }]);
    expect(q.answer.isAnswered).toBe(true);
  });
  it("ranking: valid when complete, partially valid when some ranked, valid values with none or all", () => {
    const q = new Question(QUESTIONS.ranking);
    expect([q.answer.isValid, q.answer.isPartiallyValid, q.answer.hasValidValues]).toEqual([false, false, true]);
    q.answer.set([{ value: "x", rank: 1 }]);
    expect(q.answer.value).toEqual([
      { value: "x", rank: 1 },
      { value: "y", rank: null },
    ]);
    expect([q.answer.isValid, q.answer.isPartiallyValid, q.answer.hasValidValues]).toEqual([false, true, false]);
    expect(q.answer.valueToSend(true)).toBeUndefined();
    expect(q.answer.valueToSend(false)).toEqual([{ value: "x", rank: 1 }]);
    q.answer.set([
      { value: "x", rank: 1 },
      { value: "y", rank: 2 },
    ]);
    expect([q.answer.isValid, q.answer.isPartiallyValid, q.answer.hasValidValues]).toEqual([true, false, true]);
    expect(q.answer.valueToSend(true)).toEqual([
      { value: "x", rank: 1 },
      { value: "y", rank: 2 },
    ]);
  });
  it("invalid non-ranking answers are not sent; set(null) clears", () => {
    const q = new Question(QUESTIONS.label);
    expect(q.answer.valueToSend(false)).toBeUndefined();
    q.answer.set("negative");
    expect(q.answer.valueToSend(true)).toBe("negative");
    q.answer.set(null);
    expect(q.answer.value).toBeNull();
  });
  it("an unknown question type throws the spec message", () => {
    expect(() => new QuestionAnswer("image_annotation" as never, () => [])).toThrow(
      "Question answer for type image_annotation is not implemented yet.",
    );
    expect(() => assertQuestionType("nope")).toThrow("Question answer for type nope is not implemented yet.");
    expect(isQuestionType("span")).toBe(true);
  });
});

describe("Question", () => {
  it("trims title and description, description empty when missing", () => {
    const q = new Question({ ...QUESTIONS.label, description: "  why  " });
    expect(q.title).toBe("label title");
    expect(q.description).toBe("why");
    expect(new Question(QUESTIONS.label).description).toBe("");
    expect(q.required).toBe(true);
  });
  it("visible options default to the option count and show only above 3 options with a value set", () => {
    const few = new Question(question("l", { type: "label_selection", options: opts("a", "b", "c"), visible_options: 3 }));
    expect(few.showVisibleOptions).toBe(false);
    const many = new Question(question("l", { type: "label_selection", options: opts("a", "b", "c", "d") }));
    expect(many.visibleOptions).toBe(4);
    expect(many.showVisibleOptions).toBe(false);
    many.settings.visible_options = 3;
    expect(many.visibleOptions).toBe(3);
    expect(many.showVisibleOptions).toBe(true);
  });
  it("span options get a colour from the label hash with saturation and lightness 80, keeping given colours", () => {
    const q = new Question(
      question("s", {
        type: "span",
        field: "text",
        options: [
          { value: "PER", text: "PER" },
          { value: "ORG", text: "ORG", color: "hsl(1, 2%, 3%)" },
        ],
      }),
    );
    expect(q.options[0]?.color).toBe(`hsl(${hashText("PER") % 360}, 80%, 80%)`);
    expect(q.options[0]?.color).toBe(colorForLabel("PER"));
    expect(q.options[1]?.color).toBe("hsl(1, 2%, 3%)");
    expect(colorForLabel("PER")).not.toBe(colorForLabel("ORG"));
    expect(new Question(QUESTIONS.label).options[0]?.color).toBeUndefined();
  });
  it("options_order 'suggestion' puts suggested options first by score", () => {
    const s = new Suggestion({ id: "s", questionId: "q-multi", value: ["c", "b"], score: [0.2, 0.9], agent: "m" });
    const q = new Question(QUESTIONS.multi, s);
    expect(q.orderedOptions.map((o) => o.value)).toEqual(["b", "c", "a", "d"]);
    q.settings.options_order = "natural";
    expect(q.orderedOptions.map((o) => o.value)).toEqual(["a", "b", "c", "d"]);
  });
  it("validates settings edits with the spec messages and restores or commits", () => {
    const q = new Question(QUESTIONS.text);
    expect(q.isValid).toBe(true);
    q.title = " ";
    expect(q.validate().title.map((m) => m.text)).toEqual(["This field is required."]);
    q.title = "x".repeat(201);
    expect(q.validate().title.map((m) => m.text)).toEqual(["This must be less than 200."]);
    q.description = "y".repeat(501);
    expect(q.validate().description.map((m) => m.text)).toEqual(["This must be less than 500."]);
    expect(q.isModified).toBe(true);
    q.restore();
    expect(q.isModified).toBe(false);
    q.description = "   ";
    expect(q.descriptionForUpdate).toBeNull();
    q.description = " d ";
    expect(q.descriptionForUpdate).toBe("d");
    q.commit("2026-02-02");
    expect(q.updatedAt).toBe("2026-02-02");
    expect(q.isModified).toBe(false);
    expect(q.toProps().description).toBe("d");
  });
  it("rejects non-HSL option colours", () => {
    const q = new Question(question("s", { type: "span", field: "text", options: [{ value: "A", color: "#ff0000" }] }));
    expect(q.validate().options.map((m) => m.text)).toEqual(["The value color must be HSL for now."]);
    expect(isHslColor("hsl(10, 80%, 80%)")).toBe(true);
    expect(isHslColor("rgb(1,2,3)")).toBe(false);
    expect(withSaturationLightness("hsl(10, 80%, 80%)", 50, 40)).toBe("hsl(10, 50%, 40%)");
    expect(() => withSaturationLightness("red", 1, 1)).toThrow("The value color must be HSL for now.");
  });
  it("fills from its suggestion", () => {
    const q = new Question(QUESTIONS.label, new Suggestion({ id: "s", questionId: "q-label", value: "negative", score: 0.4, agent: null }));
    q.fillFromSuggestion();
    expect(q.answer.value).toBe("negative");
  });
});

describe("dataset creation option rules (spec section 5)", () => {
  it("label, multi-label and span need two labelled options; rating two options", () => {
    expect(validateQuestionOptions("label_selection", opts("a")).map((m) => [m.key, m.text])).toEqual([
      ["datasetCreation.questions.labelSelection.atLeastTwoOptions", "At least two options are required"],
    ]);
    expect(
      validateQuestionOptions("span", [
        { value: "a", text: "a" },
        { value: "b", text: " " },
      ]).map((m) => m.text),
    ).toEqual(["Empty options are not allowed"]);
    expect(validateQuestionOptions("multi_label_selection", opts("a", "b"))).toEqual([]);
    expect(validateQuestionOptions("rating", opts(1)).map((m) => m.key)).toEqual(["datasetCreation.questions.rating.atLeastTwoOptions"]);
    expect(validateQuestionOptions("text", [])).toEqual([]);
  });
});

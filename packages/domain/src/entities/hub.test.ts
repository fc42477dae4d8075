import { describe, expect, it } from "vitest";
import {
  classifyColumn,
  convertHubCell,
  DatasetCreation,
  hubSuggestionValue,
  HubSubset,
  QuestionCreation,
  SERVER_NAME_PATTERN,
  serverName,
  uniqueServerName,
} from "./hub.js";

describe("Hub column typing (spec section 5)", () => {
  it.each([
    [
      { _type: "Value", dtype: "string" },
      { kind: "field", type: "text" },
    ],
    [{ _type: "Image" }, { kind: "field", type: "image" }],
    [[{ role: { _type: "Value", dtype: "string" }, content: { _type: "Value", dtype: "string" } }], { kind: "field", type: "chat" }],
    [
      { _type: "List", feature: { role: { _type: "Value" }, content: { _type: "Value" } } },
      { kind: "field", type: "chat" },
    ],
    [
      { _type: "ClassLabel", names: [" neg ", "pos"] },
      { kind: "question", type: "label_selection", options: ["neg", "pos"] },
    ],
    [
      { _type: "Sequence", feature: { _type: "ClassLabel", names: ["a", "b"] } },
      { kind: "question", type: "multi_label_selection", options: ["a", "b"] },
    ],
    [
      { _type: "List", feature: { _type: "ClassLabel", names: ["a"] } },
      { kind: "question", type: "multi_label_selection", options: ["a"] },
    ],
    [
      { _type: "Value", dtype: "uint16" },
      { kind: "metadata", type: "integer" },
    ],
    [
      { _type: "Value", dtype: "int64" },
      { kind: "metadata", type: "integer" },
    ],
    [
      { _type: "Value", dtype: "float16" },
      { kind: "metadata", type: "float" },
    ],
    [{ _type: "terms" }, { kind: "metadata", type: "terms" }],
    [{ _type: "Value", dtype: "bool" }, { kind: "unmapped" }],
    [{ _type: "Audio" }, { kind: "unmapped" }],
    [{ _type: "Sequence", feature: { _type: "Value", dtype: "string" } }, { kind: "unmapped" }],
    [{ nested: { _type: "Value", dtype: "string" } }, { kind: "unmapped" }],
  ])("%j → %j", (feature, expected) => {
    expect(classifyColumn(feature)).toEqual(expected);
  });
});

describe("dataset creation model", () => {
  it("adds a required comment question and a prompt field when the subset has none; a single question is required", () => {
    const s = new HubSubset("default", ["train"], { n: { _type: "Value", dtype: "int32" }, a: { _type: "Audio" } });
    expect(s.questions.map((q) => [q.name, q.type, q.required])).toEqual([["comment", "text", true]]);
    expect(s.fields.map((f) => [f.name, f.type, f.required])).toEqual([
      ["a", "no mapping", false],
      ["prompt", "text", true],
    ]);
    expect(s.mapping).toEqual({ fields: [], metadata: [{ source: "n", target: "n" }], suggestions: [], external_id: null });
  });

  it("validates questions with the spec messages and keys", () => {
    const c = DatasetCreation.fromInfo("org/ds", [
      { name: "a", splits: ["train"], features: { text: { _type: "Value", dtype: "string" } } },
      { name: "b", splits: [], features: {} },
    ]);
    expect(c.validate()).toEqual([]);
    expect(c.isValid).toBe(false); // no workspace yet
    c.workspace = { name: "new" };
    expect(c.isValid).toBe(true);
    const s = c.selectedSubset;
    const label = s.addQuestion("label_selection");
    expect(label.name).toBe("label_selection 1");
    expect(label.options.map((o) => o.value)).toEqual(["positive", "negative", "neutral"]);
    label.options = [{ value: "only" }];
    s.questions.forEach((q) => {
      q.required = false;
    });
    expect(c.validate().map((m) => [m.key, m.text])).toEqual([
      ["datasetCreation.atLeastOneRequired", "At least one required question is needed."],
      ["datasetCreation.hasInvalidQuestions", "Some questions are invalid"],
    ]);
    s.removeQuestion("comment");
    expect(label.required).toBe(true);
    s.removeQuestion(label.name);
    expect(c.validate().map((m) => m.text)).toEqual(["At least one question is required."]);
    c.selectSubset("b");
    expect(c.selectedSubset.name).toBe("b");
    expect(c.selectedSubset.split).toBe("train");
    c.selectSubset("missing");
    expect(c.selectedSubset.name).toBe("b");
    expect(() => new DatasetCreation("x/y", [])).toThrow();
  });

  it("default options by type and settings sent on creation", () => {
    expect(QuestionCreation.withDefaults("r", "rating").options.map((o) => o.value)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(QuestionCreation.withDefaults("m", "multi_label_selection").options.map((o) => o.value)).toEqual([
      "news",
      "sports",
      "international",
      "politics",
    ]);
    expect(QuestionCreation.withDefaults("k", "ranking").toSettings()).toEqual({
      type: "ranking",
      options: [
        { value: "Option 1", text: "Option 1" },
        { value: "Option 2", text: "Option 2" },
      ],
    });
    expect(QuestionCreation.withDefaults("s", "span").toSettings()).toEqual({
      type: "span",
      field: "text",
      allow_overlapping: true,
      options: [
        { value: "organisation", text: "organisation" },
        { value: "person", text: "person" },
        { value: "event", text: "event" },
      ],
    });
    expect(QuestionCreation.withDefaults("t", "text").toSettings()).toEqual({ type: "text", use_markdown: false });
  });
});

describe("Hub metadata names and cell conversion", () => {
  it("cleans metadata names to the server's rule without collisions; the mapping reads the original column", () => {
    const s = new HubSubset("default", ["train"], {
      text: { _type: "Value", dtype: "string" },
      "Helpful Votes": { _type: "Value", dtype: "int64" },
      helpful_votes: { _type: "Value", dtype: "int64" },
      "Prix (€)": { _type: "Value", dtype: "float64" },
      Übersicht: { _type: "Value", dtype: "int32" },
      "###": { _type: "Value", dtype: "int32" },
    });
    expect(s.metadata.map((m) => [m.column, m.name, m.title])).toEqual([
      ["Helpful Votes", "helpful_votes", "Helpful Votes"],
      ["helpful_votes", "helpful_votes_2", "helpful_votes"],
      ["Prix (€)", "prix", "Prix (€)"],
      ["Übersicht", "ubersicht", "Übersicht"],
      ["###", "metadata", "###"],
    ]);
    for (const m of s.metadata) expect(m.name).toMatch(SERVER_NAME_PATTERN);
    expect(s.mapping.metadata).toEqual(s.metadata.map((m) => ({ source: m.column, target: m.name })));
    // Re-adding a column keeps one property per column and a free name.
    s.addMetadata("###", "terms");
    expect(s.metadata.filter((m) => m.column === "###").map((m) => [m.name, m.type])).toEqual([["metadata", "terms"]]);
    expect(uniqueServerName("a", new Set(["a", "a_2"]))).toBe("a_3");
    expect(serverName("x".repeat(300), "f")).toHaveLength(200);
  });

  it("converts viewer cells like the import and derives the suggestion it would store", () => {
    const label = { _type: "ClassLabel", names: ["neg", "pos"] };
    expect(convertHubCell(label, 1)).toBe("pos");
    expect(convertHubCell(label, -1)).toBeNull();
    expect(convertHubCell({ _type: "Sequence", feature: label }, [0, 1])).toEqual(["neg", "pos"]);
    expect(convertHubCell([label], [1])).toEqual(["pos"]);
    expect(convertHubCell({ _type: "Image" }, { src: "http://x/a.png", height: 1 })).toBe("http://x/a.png");
    expect(convertHubCell({ _type: "Value", dtype: "int32" }, 4)).toBe(4);
    expect(hubSuggestionValue("label_selection", "pos")).toBe("pos");
    expect(hubSuggestionValue("multi_label_selection", "a")).toEqual(["a"]);
    expect(hubSuggestionValue("multi_label_selection", [])).toBeNull();
    expect(hubSuggestionValue("rating", 4.7)).toBe(4);
    expect(hubSuggestionValue("rating", "x")).toBeNull();
    expect(hubSuggestionValue("text", { a: 1 })).toBe('{"a":1}');
    expect(hubSuggestionValue("span", "x")).toBeNull();
    expect(hubSuggestionValue("label_selection", null)).toBeNull();
  });
});

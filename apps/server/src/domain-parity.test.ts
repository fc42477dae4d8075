import {
  answerViolation,
  fieldValueViolation,
  metadataValueViolation,
  QUESTION_TYPES,
  questionSettingsViolations,
  recordStatusFor,
  type AnswerRuleContext,
  type AnswerRuleQuestion,
  type FieldRuleType,
  type MetadataRuleSettings,
  type QuestionSettingsInput,
} from "@tessera/domain";
import { beforeAll, describe, expect, it } from "vitest";
import { serverForFile, uniqueName, type Json, type ValidationBody } from "./testing/fixtures.js";

/**
 * One domain for the whole product (issue 20): the same table of valid and invalid inputs goes
 * through @tessera/domain and through the server's HTTP API, and each verdict must agree. A rule
 * changed in one place and not in the other fails here.
 */
const fx = serverForFile();

const options = (...values: string[]) => values.map((value) => ({ value, text: value.toUpperCase() || "x" }));
const many = (n: number) => Array.from({ length: n }, (_, i) => ({ value: `o${i}`, text: `Option ${i}` }));
const ratings = (...values: unknown[]) => values.map((value) => ({ value }));

const SETTINGS_CASES: [string, QuestionSettingsInput & Json][] = [
  ["label: two options", { type: "label_selection", options: options("a", "b") }],
  ["label: one option", { type: "label_selection", options: options("a") }],
  ["label: 500 options", { type: "label_selection", options: many(500) }],
  ["label: 501 options", { type: "label_selection", options: many(501) }],
  ["label: duplicate values", { type: "label_selection", options: options("a", "a") }],
  [
    "label: empty value",
    {
      type: "label_selection",
      options: [
        { value: "", text: "Empty" },
        { value: "b", text: "B" },
      ],
    },
  ],
  [
    "label: value of 200 characters",
    {
      type: "label_selection",
      options: [
        { value: "v".repeat(200), text: "A" },
        { value: "b", text: "B" },
      ],
    },
  ],
  [
    "label: value of 201 characters",
    {
      type: "label_selection",
      options: [
        { value: "v".repeat(201), text: "A" },
        { value: "b", text: "B" },
      ],
    },
  ],
  [
    "label: text of 501 characters",
    {
      type: "label_selection",
      options: [
        { value: "a", text: "t".repeat(501) },
        { value: "b", text: "B" },
      ],
    },
  ],
  ["label: option without text", { type: "label_selection", options: [{ value: "a" }, { value: "b", text: "B" }] }],
  [
    "label: option description of 1,001 characters",
    {
      type: "label_selection",
      options: [
        { value: "a", text: "A", description: "d".repeat(1001) },
        { value: "b", text: "B" },
      ],
    },
  ],
  ["label: visible_options 2", { type: "label_selection", options: options("a", "b", "c"), visible_options: 2 }],
  ["label: visible_options 3 of 3", { type: "label_selection", options: options("a", "b", "c"), visible_options: 3 }],
  ["label: visible_options 4 of 3", { type: "label_selection", options: options("a", "b", "c"), visible_options: 4 }],
  ["multi-label: two options", { type: "multi_label_selection", options: options("a", "b") }],
  ["multi-label: one option", { type: "multi_label_selection", options: options("a") }],
  ["multi-label: visible_options 5 of 4", { type: "multi_label_selection", options: options("a", "b", "c", "d"), visible_options: 5 }],
  ["ranking: two options", { type: "ranking", options: options("a", "b") }],
  ["ranking: 50 options", { type: "ranking", options: many(50) }],
  ["ranking: 51 options", { type: "ranking", options: many(51) }],
  ["span: one option", { type: "span", field: "text", options: options("per") }],
  ["span: no option", { type: "span", field: "text", options: [] }],
  ["span: HSL colour with commas", { type: "span", field: "text", options: [{ value: "per", text: "PER", color: "hsl(10, 20%, 30%)" }] }],
  ["span: HSL colour without commas", { type: "span", field: "text", options: [{ value: "per", text: "PER", color: "hsl(10 20% 30%)" }] }],
  ["span: HSLA colour", { type: "span", field: "text", options: [{ value: "per", text: "PER", color: "hsla(10, 20%, 30%, 0.5)" }] }],
  [
    "span: colour with spaces around it",
    { type: "span", field: "text", options: [{ value: "per", text: "PER", color: " hsl(10, 20%, 30%) " }] },
  ],
  ["span: hex colour", { type: "span", field: "text", options: [{ value: "per", text: "PER", color: "#ff0000" }] }],
  ["rating: 1 and 2", { type: "rating", options: ratings(1, 2) }],
  ["rating: 0 to 10", { type: "rating", options: ratings(...Array.from({ length: 11 }, (_, i) => i)) }],
  ["rating: one value", { type: "rating", options: ratings(1) }],
  ["rating: 11", { type: "rating", options: ratings(1, 11) }],
  ["rating: -1", { type: "rating", options: ratings(-1, 1) }],
  ["rating: 1.5", { type: "rating", options: ratings(1.5, 2) }],
  ["rating: duplicates", { type: "rating", options: ratings(2, 2) }],
  ["text", { type: "text" }],
];

describe("question settings: the domain and the server agree", () => {
  it.each(SETTINGS_CASES)("%s", async (_name, settings) => {
    const ws = await fx.workspace();
    const ds = await fx.dataset(ws.id);
    await fx.field(ds.id, { name: "text", title: "Text" });
    const domainAccepts = questionSettingsViolations(settings).length === 0;
    const name = uniqueName("q");
    const res = await fx.request("POST", `/datasets/${ds.id}/questions`, { body: { name, title: name, required: true, settings } });
    expect(res.status === 201 ? "accepted" : `refused (${res.status})`).toBe(domainAccepts ? "accepted" : "refused (422)");
  });
});

interface AnswerCase {
  question: keyof typeof QUESTION_SETTINGS;
  value: unknown;
  status: "submitted" | "draft";
}
const QUESTION_SETTINGS = {
  text: { type: "text" },
  label: { type: "label_selection", options: options("yes", "no") },
  multi: { type: "multi_label_selection", options: options("a", "b", "c") },
  rating: { type: "rating", options: ratings(1, 2, 3) },
  ranking: { type: "ranking", options: options("x", "y", "z") },
  span: { type: "span", field: "text", options: options("per", "org"), allow_overlapping: false },
} as const;
const RECORD_TEXT = "Ada Lovelace met Babbage";

const ANSWER_CASES: [string, AnswerCase][] = [
  ["text", { question: "text", value: "a thought", status: "submitted" }],
  ["text: empty", { question: "text", value: "", status: "submitted" }],
  ["text: only whitespace", { question: "text", value: "   ", status: "submitted" }],
  ["text: a number", { question: "text", value: 3, status: "submitted" }],
  ["label: an option", { question: "label", value: "yes", status: "submitted" }],
  ["label: not an option", { question: "label", value: "maybe", status: "submitted" }],
  ["label: a list", { question: "label", value: ["yes"], status: "submitted" }],
  ["multi-label: two options", { question: "multi", value: ["a", "c"], status: "submitted" }],
  ["multi-label: empty", { question: "multi", value: [], status: "submitted" }],
  ["multi-label: duplicates", { question: "multi", value: ["a", "a"], status: "submitted" }],
  ["multi-label: one unknown", { question: "multi", value: ["a", "q"], status: "submitted" }],
  ["multi-label: not a list", { question: "multi", value: "a", status: "submitted" }],
  ["rating: an option", { question: "rating", value: 2, status: "submitted" }],
  ["rating: not an option", { question: "rating", value: 7, status: "submitted" }],
  ["rating: a string", { question: "rating", value: "2", status: "submitted" }],
  ["rating: 2.5", { question: "rating", value: 2.5, status: "submitted" }],
  [
    "ranking: complete",
    {
      question: "ranking",
      value: [
        { value: "x", rank: 1 },
        { value: "y", rank: 2 },
        { value: "z", rank: 3 },
      ],
      status: "submitted",
    },
  ],
  [
    "ranking: ties",
    {
      question: "ranking",
      value: [
        { value: "x", rank: 1 },
        { value: "y", rank: 1 },
        { value: "z", rank: 2 },
      ],
      status: "submitted",
    },
  ],
  ["ranking: partial, submitted", { question: "ranking", value: [{ value: "x", rank: 1 }], status: "submitted" }],
  ["ranking: partial, draft", { question: "ranking", value: [{ value: "x", rank: 1 }], status: "draft" }],
  [
    "ranking: rank out of range",
    {
      question: "ranking",
      value: [
        { value: "x", rank: 1 },
        { value: "y", rank: 2 },
        { value: "z", rank: 4 },
      ],
      status: "submitted",
    },
  ],
  [
    "ranking: unknown value",
    {
      question: "ranking",
      value: [
        { value: "x", rank: 1 },
        { value: "y", rank: 2 },
        { value: "w", rank: 3 },
      ],
      status: "submitted",
    },
  ],
  [
    "ranking: duplicate values",
    {
      question: "ranking",
      value: [
        { value: "x", rank: 1 },
        { value: "x", rank: 2 },
        { value: "z", rank: 3 },
      ],
      status: "submitted",
    },
  ],
  ["ranking: fractional rank", { question: "ranking", value: [{ value: "x", rank: 1.5 }], status: "draft" }],
  ["span: one span", { question: "span", value: [{ label: "per", start: 0, end: 12 }], status: "submitted" }],
  ["span: none", { question: "span", value: [], status: "submitted" }],
  ["span: unknown label", { question: "span", value: [{ label: "loc", start: 0, end: 3 }], status: "submitted" }],
  [
    "span: end beyond the text",
    { question: "span", value: [{ label: "per", start: 0, end: RECORD_TEXT.length + 1 }], status: "submitted" },
  ],
  ["span: end at the text's end", { question: "span", value: [{ label: "per", start: 17, end: RECORD_TEXT.length }], status: "submitted" }],
  ["span: end before start", { question: "span", value: [{ label: "per", start: 5, end: 3 }], status: "submitted" }],
  [
    "span: overlapping",
    {
      question: "span",
      value: [
        { label: "per", start: 0, end: 5 },
        { label: "org", start: 3, end: 8 },
      ],
      status: "submitted",
    },
  ],
  [
    "span: adjacent",
    {
      question: "span",
      value: [
        { label: "per", start: 0, end: 3 },
        { label: "org", start: 3, end: 8 },
      ],
      status: "submitted",
    },
  ],
  ["span: negative start", { question: "span", value: [{ label: "per", start: -1, end: 3 }], status: "submitted" }],
  ["span: not a list", { question: "span", value: { label: "per", start: 0, end: 3 }, status: "submitted" }],
];

function ruleQuestion(settings: (typeof QUESTION_SETTINGS)[keyof typeof QUESTION_SETTINGS]): AnswerRuleQuestion {
  const optionValues = "options" in settings ? settings.options.map((o) => o.value as string | number) : [];
  return {
    type: settings.type,
    optionValues,
    ...(settings.type === "span" ? { allowOverlapping: settings.allow_overlapping, spanField: settings.field } : {}),
  };
}

describe("answer values: the domain and the server agree", () => {
  let recordIds: string[] = [];
  const questionIds: Record<string, string> = {};

  beforeAll(async () => {
    const ws = await fx.workspace();
    const ds = await fx.dataset(ws.id);
    await fx.field(ds.id, { name: "text", title: "Text" });
    for (const [name, settings] of Object.entries(QUESTION_SETTINGS)) {
      const q = await fx.question(ds.id, { name, title: name, required: false, settings });
      questionIds[name] = q.id;
    }
    // Publishing needs a required question: every response below answers it the same way.
    await fx.question(ds.id, { name: "gate", title: "gate", required: true, settings: QUESTION_SETTINGS.label });
    await fx.publish(ds.id);
    const items = Array.from({ length: ANSWER_CASES.length * 2 }, () => ({ fields: { text: RECORD_TEXT } }));
    recordIds = await fx.records(ds.id, items);
  }, 60_000);

  it.each(ANSWER_CASES.map(([name, c], i) => [name, c, i] as const))("%s", async (_name, c, index) => {
    const settings = QUESTION_SETTINGS[c.question];
    const response: AnswerRuleContext = { status: c.status, fieldText: RECORD_TEXT };
    const domainAccepts = answerViolation(ruleQuestion(settings), c.value, response) === null;
    const asResponse = await fx.request("POST", `/records/${recordIds[index * 2]}/responses`, {
      body: { status: c.status, values: { gate: { value: "yes" }, [c.question]: { value: c.value } } },
    });
    expect(asResponse.status === 201 ? "accepted" : `refused (${asResponse.status})`).toBe(domainAccepts ? "accepted" : "refused (422)");
    // Suggestions follow the same value rules, without the submitted-only ranking rules.
    const suggestionAccepts = answerViolation(ruleQuestion(settings), c.value, { status: "suggestion", fieldText: RECORD_TEXT }) === null;
    const asSuggestion = await fx.request("PUT", `/records/${recordIds[index * 2 + 1]}/suggestions`, {
      body: { question_id: questionIds[c.question], value: c.value, type: "model" },
    });
    expect(asSuggestion.status < 300 ? "accepted" : `refused (${asSuggestion.status})`).toBe(
      suggestionAccepts ? "accepted" : "refused (422)",
    );
  });
});

describe("record status: the domain and the server agree", () => {
  it("completes a record at min_submitted submitted responses, and drafts do not count", async () => {
    const ws = await fx.workspace();
    const ds = await fx.dataset(ws.id, { distribution: { strategy: "overlap", min_submitted: 2 } });
    await fx.field(ds.id, { name: "text", title: "Text" });
    const question = await fx.question(ds.id);
    await fx.publish(ds.id);
    const [recordId] = await fx.records(ds.id, [{ fields: { text: "one" } }]);
    const status = async () => (await fx.ok<{ status: string }>("GET", `/records/${recordId}`)).status;
    const answer = async (responseStatus: "submitted" | "draft") => {
      const user = await fx.member(ws.id);
      await fx.ok(
        "POST",
        `/records/${recordId}/responses`,
        { status: responseStatus, values: { [question.name]: { value: "yes" } } },
        201,
        user.headers,
      );
    };
    expect(await status()).toBe(recordStatusFor(0, 2));
    await answer("submitted");
    expect(await status()).toBe(recordStatusFor(1, 2));
    await answer("draft");
    expect(await status()).toBe(recordStatusFor(1, 2));
    await answer("submitted");
    expect(await status()).toBe(recordStatusFor(2, 2));
    expect(await status()).toBe("completed");
  });
});

describe("question types: the server knows the domain's types, in its order", () => {
  it("lists the domain's QUESTION_TYPES when it refuses an unknown type, on create and on update", async () => {
    const ws = await fx.workspace();
    const ds = await fx.dataset(ws.id);
    const expected = `Expected ${QUESTION_TYPES.map((t) => `'${t}'`).join(" | ")}`;
    const created = await fx.request<ValidationBody>("POST", `/datasets/${ds.id}/questions`, {
      body: { name: "q", title: "q", settings: { type: "bogus" } },
    });
    expect(created.status).toBe(422);
    expect(created.body.detail.params.errors[0]!.msg).toContain(expected);
    const question = await fx.question(ds.id);
    const updated = await fx.request<ValidationBody>("PATCH", `/questions/${question.id}`, { body: { settings: { type: "bogus" } } });
    expect(updated.status).toBe(422);
    expect(updated.body.detail.params.errors[0]!.msg).toContain(expected);
    for (const type of QUESTION_TYPES) expect(created.body.detail.params.errors[0]!.msg).toContain(`'${type}'`);
  });
});

const METADATA_PROPERTIES = {
  genre: { type: "terms", values: ["news", "blog", 3, true] },
  anyterm: { type: "terms", values: null },
  words: { type: "integer", min: 0, max: 1000 },
  quality: { type: "float", min: 0, max: 1 },
  score: { type: "float", min: null, max: null },
} as const satisfies Record<string, MetadataRuleSettings>;

const METADATA_CASES: [string, keyof typeof METADATA_PROPERTIES, Json[string]][] = [
  ["terms: an allowed term", "genre", "news"],
  ["terms: allowed terms", "genre", ["news", "blog"]],
  ["terms: an allowed number", "genre", 3],
  ["terms: an allowed boolean", "genre", true],
  ["terms: not allowed", "genre", "sports"],
  ["terms: one of the list not allowed", "genre", ["news", "sports"]],
  ["terms: any term", "anyterm", "whatever"],
  ["terms: an object", "anyterm", { a: 1 }],
  ["terms: a nested list", "anyterm", [["a"]]],
  ["integer: in range", "words", 12],
  ["integer: the bounds", "words", 1000],
  ["integer: below", "words", -1],
  ["integer: above", "words", 1001],
  ["integer: a fraction", "words", 1.5],
  ["integer: a string", "words", "12"],
  ["integer: a boolean", "words", true],
  ["float: in range", "quality", 0.5],
  ["float: above", "quality", 1.01],
  ["float: an integer", "quality", 1],
  ["float: a string", "quality", "0.5"],
  ["float: unbounded", "score", -12345.678],
];

describe("metadata values: the domain and the server agree", () => {
  let datasetId = "";
  beforeAll(async () => {
    const ws = await fx.workspace();
    const ds = await fx.dataset(ws.id, { allow_extra_metadata: false });
    datasetId = ds.id;
    await fx.field(ds.id, { name: "text", title: "Text" });
    await fx.question(ds.id);
    for (const [name, settings] of Object.entries(METADATA_PROPERTIES)) await fx.metadataProperty(ds.id, { name, title: name, settings });
    await fx.publish(ds.id);
  }, 60_000);

  it.each(METADATA_CASES)("%s", async (_name, property, value) => {
    const domainAccepts = metadataValueViolation(METADATA_PROPERTIES[property], value) === null;
    const res = await fx.request("POST", `/datasets/${datasetId}/records/bulk`, {
      body: { items: [{ fields: { text: "t" }, metadata: { [property]: value } }] },
    });
    expect(res.status === 201 ? "accepted" : `refused (${res.status})`).toBe(domainAccepts ? "accepted" : "refused (422)");
  });
});

const FIELD_TYPES = { text: "text", image: "image", chat: "chat", custom: "custom" } as const satisfies Record<string, FieldRuleType>;
const FIELD_CASES: [string, keyof typeof FIELD_TYPES, unknown][] = [
  ["text: a string", "text", "hello"],
  ["text: a number", "text", 3],
  ["text: a list", "text", ["a"]],
  ["image: an https URL", "image", "https://example.com/cat.png"],
  ["image: an http URL without a path", "image", "http://example.com"],
  ["image: a png data URL", "image", "data:image/png;base64,iVBORw0KGgo="],
  ["image: an html data URL", "image", "data:text/html;base64,PGI+"],
  ["image: an ftp URL", "image", "ftp://example.com/cat.png"],
  ["image: not a URL", "image", "cat.png"],
  ["image: a URL of 2,100 characters", "image", `https://example.com/${"a".repeat(2100)}`],
  ["image: a number", "image", 3],
  [
    "chat: two messages",
    "chat",
    [
      { role: "user", content: "hi" },
      { role: "assistant", content: "hello" },
    ],
  ],
  ["chat: a message without content", "chat", [{ role: "user" }]],
  ["chat: a role with a space", "chat", [{ role: "a user", content: "hi" }]],
  ["chat: a role of 21 characters", "chat", [{ role: "r".repeat(21), content: "hi" }]],
  ["chat: content of 20,001 characters", "chat", [{ role: "user", content: "c".repeat(20_001) }]],
  ["chat: 501 messages", "chat", Array.from({ length: 501 }, () => ({ role: "user", content: "hi" }))],
  ["chat: a string", "chat", "hi"],
  ["custom: an object", "custom", { a: 1 }],
  ["custom: a string", "custom", "a"],
  ["custom: a list", "custom", [1]],
];

describe("field values: the domain and the server agree", () => {
  let datasetId = "";
  beforeAll(async () => {
    const ws = await fx.workspace();
    const ds = await fx.dataset(ws.id);
    datasetId = ds.id;
    for (const [name, type] of Object.entries(FIELD_TYPES)) {
      const settings = type === "custom" ? { type, template: "<div>{{record.fields.custom.a}}</div>" } : { type };
      await fx.field(ds.id, { name, title: name, required: false, settings });
    }
    await fx.question(ds.id);
    await fx.publish(ds.id);
  }, 60_000);

  it.each(FIELD_CASES)("%s", async (_name, field, value) => {
    const domainAccepts = fieldValueViolation(FIELD_TYPES[field], value) === null;
    const res = await fx.request("POST", `/datasets/${datasetId}/records/bulk`, { body: { items: [{ fields: { [field]: value } }] } });
    expect(res.status === 201 ? "accepted" : `refused (${res.status})`).toBe(domainAccepts ? "accepted" : "refused (422)");
  });
});

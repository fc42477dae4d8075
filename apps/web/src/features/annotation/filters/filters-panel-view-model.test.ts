import { describe, expect, it } from "vitest";
import { MetadataProperty, PageCriteria, Question, RecordCriteria, type QuestionProps } from "@tessera/domain";
import { AnnotationViewModel } from "../annotation-view-model";
import { criteriaToQuery } from "../criteria-url";
import { FakeServer, recordProps } from "../test-fixtures";
import { FiltersPanelViewModel, matchTerms, optionText, SUBJECT_SEARCH_FROM } from "./filters-panel-view-model";

const prop = (name: string, settings: MetadataProperty["settings"]) =>
  new MetadataProperty({ id: `m-${name}`, name, title: name.toUpperCase(), settings, visibleForAnnotators: true, datasetId: "d" });
const q = (props: Omit<QuestionProps, "datasetId" | "description" | "required">) =>
  new Question({ datasetId: "d", description: null, required: false, ...props });
const sentiment = q({
  id: "q1",
  name: "sentiment",
  title: "Sentiment",
  settings: {
    type: "label_selection",
    options: [
      { value: "pos", text: "Positive" },
      { value: "neg", text: "Negative" },
    ],
  },
});
const ranking = q({
  id: "q2",
  name: "rank",
  title: "Rank",
  settings: {
    type: "ranking",
    options: [
      { value: "a", text: "A" },
      { value: "b", text: "B" },
    ],
  },
});
const genre = prop("genre", { type: "terms", values: ["news", "blog"] });
const length = prop("length", { type: "integer", min: 0, max: 10 });

async function setUp(initial?: RecordCriteria) {
  const server = new FakeServer(Array.from({ length: 3 }, (_, i) => recordProps(i + 1)));
  const vm = new AnnotationViewModel(
    "d",
    server.useCases(),
    initial ?? new RecordCriteria({ datasetId: "d", page: new PageCriteria(1, "focus") }),
  );
  await vm.load();
  const panel = new FiltersPanelViewModel(vm);
  panel.setSchema([genre, length], [sentiment, ranking]);
  return { vm, panel };
}

describe("FiltersPanelViewModel", () => {
  it("offers the metadata properties it was given, response filters only for questions that have them, suggestions for all", async () => {
    const { panel } = await setUp();
    expect(panel.categories).toEqual(["metadata", "responses", "suggestions"]);
    expect(panel.subjects("metadata").map((s) => s.title)).toEqual(["GENRE", "LENGTH"]);
    expect(panel.subjects("responses").map((s) => s.title)).toEqual(["Sentiment"]);
    expect(panel.subjects("suggestions").map((s) => s.title)).toEqual(["Sentiment", "Rank"]);
    // an annotator given no metadata property (hidden ones never reach the panel) gets no metadata category
    panel.setSchema([], [sentiment]);
    expect(panel.categories).toEqual(["responses", "suggestions"]);
  });

  it("opens a category on its list, or straight on the editor when it has one entry; back and close", async () => {
    const { panel } = await setUp();
    panel.openPopover("metadata");
    expect([panel.openCategory, panel.editing]).toEqual(["metadata", null]);
    panel.choose({ category: "metadata", name: "length" });
    expect(panel.isEditing({ category: "metadata", name: "length" })).toBe(true);
    panel.back();
    expect(panel.editing).toBeNull();
    panel.openPopover("responses");
    expect(panel.editing).toEqual({ category: "responses", question: "sentiment" });
    panel.closePopover();
    expect([panel.openCategory, panel.editing]).toEqual([null, null]);
  });

  it("lists active filters as badges with option texts, ranges and suggestion properties; clearing one restores the rest", async () => {
    const { vm, panel } = await setUp();
    expect([panel.activeCount, panel.expanded, panel.canReset]).toEqual([0, false, false]);
    vm.setCriteria((c) => {
      c.metadata = [
        { kind: "terms", name: "genre", values: ["news"] },
        { kind: "range", name: "length", ge: 2, le: 5 },
      ];
    });
    vm.setResponseFilter("sentiment", { kind: "terms", question: "sentiment", values: ["pos"] });
    vm.setSuggestionFilter("sentiment", "agent", { kind: "terms", question: "sentiment", property: "agent", values: ["gpt-4"] });
    vm.setSuggestionFilter("rank", "score", { kind: "range", question: "rank", property: "score", ge: 0.5, le: 1 });
    expect(panel.activeFilters.map(({ key, title, property, values, range }) => ({ key, title, property, values, range }))).toEqual([
      { key: "m-genre", title: "GENRE", property: null, values: ["news"], range: null },
      { key: "m-length", title: "LENGTH", property: null, values: null, range: { ge: 2, le: 5 } },
      { key: "r-sentiment", title: "Sentiment", property: null, values: ["Positive"], range: null },
      { key: "s-sentiment-agent", title: "Sentiment", property: "agent", values: ["gpt-4"], range: null },
      { key: "s-rank-score", title: "Rank", property: "score", values: null, range: { ge: 0.5, le: 1 } },
    ]);
    expect(panel.subjects("metadata").map((s) => s.active)).toEqual([true, true]);
    expect(panel.canReset).toBe(true);
    panel.activeFilters.find((f) => f.key === "r-sentiment")!.clear();
    panel.activeFilters.find((f) => f.key === "m-genre")!.clear();
    expect(panel.activeFilters.map((f) => f.key)).toEqual(["m-length", "s-sentiment-agent", "s-rank-score"]);
    const query = criteriaToQuery(vm.criteria);
    expect([query._response, JSON.parse(String(query._metadata))]).toEqual([null, [{ kind: "range", name: "length", ge: 2, le: 5 }]]);
  });

  it("starts expanded when the URL brings filters; a badge opens its editor; Reset clears filters, search and sort but keeps the status", async () => {
    const initial = new RecordCriteria({
      datasetId: "d",
      status: "submitted",
      searchText: "cats",
      metadata: [{ kind: "terms", name: "genre", values: ["blog"] }],
      sort: [{ key: { entity: "record", property: "inserted_at" }, order: "desc" }],
    });
    const { vm, panel } = await setUp(initial);
    expect(panel.expanded).toBe(true);
    panel.toggleExpanded();
    panel.editFilter(panel.activeFilters[0]!);
    expect([panel.expanded, panel.openCategory, panel.editing]).toEqual([true, "metadata", { category: "metadata", name: "genre" }]);
    panel.reset();
    expect([vm.criteria.metadata, vm.criteria.sort, vm.criteria.searchText, vm.criteria.status, panel.openCategory]).toEqual([
      [],
      [],
      "",
      "submitted",
      null,
    ]);
    expect(panel.canReset).toBe(false);
  });

  it("searches a long list of properties", async () => {
    const { panel } = await setUp();
    const many = Array.from({ length: SUBJECT_SEARCH_FROM }, (_, i) => prop(`p${i}`, { type: "terms", values: [] }));
    panel.setSchema(many, []);
    panel.openPopover("metadata");
    expect(panel.hasSubjectSearch).toBe(true);
    panel.setSubjectQuery("p3");
    expect(panel.shownSubjects.map((s) => s.title)).toEqual(["P3"]);
    panel.openPopover("metadata");
    expect(panel.shownSubjects).toHaveLength(SUBJECT_SEARCH_FROM);
  });

  it("falls back to the questions of the record on screen until the settings load", async () => {
    const { vm } = await setUp();
    const panel = new FiltersPanelViewModel(vm);
    expect(panel.questions.map((x) => x.name)).toEqual(["sentiment", "comment"]);
  });
});

describe("matchTerms and optionText", () => {
  it("matches case-insensitively on labels; an empty query keeps all in order", () => {
    expect(matchTerms(["News", "blog", "newsletter"], String, " NEWS ")).toEqual(["News", "newsletter"]);
    expect(matchTerms([3, 1], String, "")).toEqual([3, 1]);
  });
  it("gives the option text of a value, else the value", () => {
    expect([optionText(sentiment, "neg"), optionText(sentiment, "other"), optionText(undefined, 4)]).toEqual(["Negative", "other", "4"]);
  });
});

import { afterEach, describe, expect, it } from "vitest";
import { cleanup, fireEvent, screen, waitFor, within } from "@testing-library/react";
import {
  GetMetadataMetricsUseCase,
  MetadataProperty,
  PageCriteria,
  Question,
  RecordCriteria,
  type MetadataMetrics,
  type MetadataRepository,
  type QuestionProps,
} from "@tessera/domain";
import { AnnotationViewModel } from "../annotation-view-model";
import { criteriaFromQuery, criteriaToQuery } from "../criteria-url";
import { opts, renderWithI18n } from "../component-test-utils";
import { FakeServer, recordProps } from "../test-fixtures";
import { MetadataFilterEditor } from "./MetadataFilterEditor";
import { ResponseFilterEditor, SuggestionFilterEditor } from "./AnswerFilters";
import { SortEditor } from "./SortEditor";

afterEach(cleanup);
// jsdom has no ResizeObserver (the slider measures its thumbs with it); layout is not what these tests check
globalThis.ResizeObserver ??= class {
  observe() {}
  unobserve() {}
  disconnect() {}
};

const prop = (name: string, settings: MetadataProperty["settings"]) =>
  new MetadataProperty({ id: `m-${name}`, name, title: name.toUpperCase(), settings, visibleForAnnotators: true, datasetId: "d" });
const genre = prop("genre", { type: "terms", values: ["fiction", "news", "blog"] });
const length = prop("length", { type: "integer", min: null, max: null });
const broken = prop("broken", { type: "float", min: 0, max: 1 });

const METRICS: Record<string, MetadataMetrics> = {
  "m-genre": {
    type: "terms",
    total: 2,
    terms: [
      { term: "news", count: 8 },
      { term: "fiction", count: 2 },
    ],
  },
  "m-length": { type: "integer", min: 3, max: 40 },
};
const metadataRepo = {
  getMetrics: async (id: string) => {
    const m = METRICS[id];
    if (!m) throw new Error("ERROR_FETCHING_METADATA_METRIC");
    return m;
  },
} as unknown as MetadataRepository;

const q = (props: Omit<QuestionProps, "datasetId" | "description" | "required">) =>
  new Question({ datasetId: "d", description: null, required: false, ...props });
const rating = q({ id: "q-stars", name: "stars", title: "Stars", settings: { type: "rating", options: opts(1, 2, 3, 4, 5) } });
const comment = q({ id: "q-comment", name: "comment", title: "Comment", settings: { type: "text" } });
const spans = q({ id: "q-spans", name: "spans", title: "Spans", settings: { type: "span", field: "text", options: opts("a", "b") } });

async function viewModel() {
  const server = new FakeServer(Array.from({ length: 3 }, (_, i) => recordProps(i + 1)));
  const vm = new AnnotationViewModel(
    "d",
    { ...server.useCases(), metadataMetrics: new GetMetadataMetricsUseCase(metadataRepo) },
    new RecordCriteria({ datasetId: "d", page: new PageCriteria(1, "focus") }),
  );
  await vm.load();
  return vm;
}

describe("metadata filters use the observed metrics", () => {
  it("loads terms and min/max per visible property; a failing property falls back to its settings", async () => {
    const vm = await viewModel();
    await vm.loadMetadataMetrics([genre, length, broken]);
    expect(vm.metadataTerms(genre)).toEqual(["news", "fiction"]);
    expect(vm.metadataRange(length)).toEqual({ min: 3, max: 40 });
    expect(vm.metadataRange(broken)).toEqual({ min: 0, max: 1 });
    expect(vm.metadataTerms(prop("other", { type: "terms", values: ["z"] }))).toEqual(["z"]);
  });

  it("terms: a searchable list of the observed terms that filters on click", async () => {
    const vm = await viewModel();
    await vm.loadMetadataMetrics([genre]);
    await renderWithI18n(<MetadataFilterEditor vm={vm} property={genre} />);
    const group = screen.getByRole("group", { name: "GENRE" });
    expect(
      within(group)
        .getAllByRole("checkbox")
        .map((c) => c.parentElement?.textContent?.trim()),
    ).toEqual(["news", "fiction"]);
    fireEvent.change(within(group).getByRole("searchbox", { name: "Search GENRE" }), { target: { value: "FIC" } });
    expect(
      within(group)
        .getAllByRole("checkbox")
        .map((c) => c.parentElement?.textContent?.trim()),
    ).toEqual(["fiction"]);
    fireEvent.click(within(group).getByRole("checkbox", { name: "fiction" }));
    expect(vm.criteria.metadata).toEqual([{ kind: "terms", name: "genre", values: ["fiction"] }]);
    fireEvent.change(within(group).getByRole("searchbox", { name: "Search GENRE" }), { target: { value: "zzz" } });
    // a chosen value stays listed only when it matches; nothing matching says so
    screen.getByText("No matches");
  });

  it("range: a two-thumb slider and From/To inputs clamped to the observed min and max", async () => {
    const vm = await viewModel();
    await vm.loadMetadataMetrics([length]);
    await renderWithI18n(<MetadataFilterEditor vm={vm} property={length} />);
    screen.getByText("Observed: 3 to 40");
    const group = screen.getByRole("group", { name: "LENGTH" });
    const [low, high] = within(group).getAllByRole("slider");
    expect([
      low!.getAttribute("aria-valuemin"),
      low!.getAttribute("aria-valuemax"),
      low!.getAttribute("aria-label"),
      high!.getAttribute("aria-valuenow"),
    ]).toEqual(["3", "40", "Minimum of LENGTH", "40"]);
    const from = within(group).getByRole("spinbutton", { name: "From" }) as HTMLInputElement;
    const to = within(group).getByRole("spinbutton", { name: "To" }) as HTMLInputElement;
    fireEvent.change(from, { target: { value: "1" } });
    fireEvent.blur(from);
    expect([from.value, vm.criteria.metadata]).toEqual(["3", []]);
    fireEvent.change(to, { target: { value: "99" } });
    fireEvent.blur(to);
    fireEvent.change(to, { target: { value: "12" } });
    fireEvent.keyDown(to, { key: "Enter" });
    expect(vm.criteria.metadata).toEqual([{ kind: "range", name: "length", ge: 3, le: 12 }]);
    // the keyboard on the slider: one step up from the minimum applies at once
    low!.focus();
    fireEvent.keyDown(low!, { key: "ArrowRight" });
    await waitFor(() => expect(vm.criteria.metadata).toEqual([{ kind: "range", name: "length", ge: 4, le: 12 }]));
    expect(from.value).toBe("4");
  });

  it("range: nothing to choose from while no record has a value", async () => {
    const vm = await viewModel();
    await renderWithI18n(<MetadataFilterEditor vm={vm} property={length} />);
    screen.getByText("No values observed yet");
  });
});

describe("response and suggestion filters", () => {
  it("rating: values or a range ('Filter by'), kept in _response", async () => {
    const vm = await viewModel();
    await renderWithI18n(<ResponseFilterEditor vm={vm} question={rating} />);
    fireEvent.click(screen.getByRole("checkbox", { name: "5" }));
    expect(vm.criteria.responses).toEqual([{ kind: "terms", question: "stars", values: [5] }]);
    fireEvent.click(within(screen.getByRole("group", { name: "Filter by" })).getByRole("radio", { name: "Range" }));
    const group = screen.getByRole("group", { name: "Responses to Stars" });
    fireEvent.change(within(group).getByRole("spinbutton", { name: "From" }), { target: { value: "2" } });
    fireEvent.blur(within(group).getByRole("spinbutton", { name: "From" }));
    fireEvent.change(within(group).getByRole("spinbutton", { name: "To" }), { target: { value: "4" } });
    fireEvent.blur(within(group).getByRole("spinbutton", { name: "To" }));
    expect(vm.criteria.responses).toEqual([{ kind: "range", question: "stars", ge: 2, le: 4 }]);
    const back = criteriaFromQuery("d", { _response: String(criteriaToQuery(vm.criteria)._response) });
    expect(back.toSearchBody().filters?.and).toContainEqual({
      type: "range",
      scope: { entity: "response", question: "stars" },
      ge: 2,
      le: 4,
    });
  });

  it("text: an exact answer; span: no value property for suggestions, score as a 0..1 range", async () => {
    const vm = await viewModel();
    await renderWithI18n(<ResponseFilterEditor vm={vm} question={comment} />);
    fireEvent.change(screen.getByRole("textbox", { name: "Exact answer" }), { target: { value: " n/a " } });
    fireEvent.click(screen.getByRole("button", { name: "Apply" }));
    expect(vm.criteria.responses).toEqual([{ kind: "terms", question: "comment", values: ["n/a"] }]);
    cleanup();
    await renderWithI18n(<SuggestionFilterEditor vm={vm} question={spans} />);
    const property = screen.getByRole("group", { name: "Filter on" });
    expect(
      within(property)
        .getAllByRole("radio")
        .map((o) => o.parentElement?.textContent),
    ).toEqual(["Score", "Agent"]);
    fireEvent.change(screen.getByRole("spinbutton", { name: "From" }), { target: { value: "0.5" } });
    fireEvent.blur(screen.getByRole("spinbutton", { name: "From" }));
    fireEvent.change(screen.getByRole("spinbutton", { name: "To" }), { target: { value: "7" } });
    fireEvent.blur(screen.getByRole("spinbutton", { name: "To" }));
    expect(vm.criteria.suggestions).toEqual([{ kind: "range", question: "spans", property: "score", ge: 0.5, le: 1 }]);
    fireEvent.click(within(property).getByRole("radio", { name: "Agent" }));
    screen.getByText("No agents for this question");
  });
});

describe("SortEditor", () => {
  it("sorts by a metadata property descending, then by suggestion score; removes an item; kept in _sort", async () => {
    const vm = await viewModel();
    await renderWithI18n(<SortEditor vm={vm} questions={[rating, comment]} metadata={[length]} />);
    const first = screen.getByRole("combobox", { name: "Sort" });
    const labels = within(first)
      .getAllByRole("option")
      .map((o) => o.textContent);
    expect(labels).toEqual([
      "Default order",
      "Inserted at",
      "Updated at",
      "LENGTH",
      "Suggestion score: Stars",
      "Suggestion value: Stars",
      "Suggestion score: Comment",
      "Response value: Stars",
    ]);
    fireEvent.change(first, { target: { value: "metadata:length" } });
    fireEvent.click(within(await screen.findByRole("group", { name: "Order of LENGTH" })).getByRole("radio", { name: "Descending" }));
    fireEvent.click(screen.getByRole("button", { name: "+ Add another field" }));
    const then = await screen.findByRole("combobox", { name: "Then by" });
    expect(within(then).queryByRole("option", { name: "LENGTH" })).toBeNull();
    fireEvent.change(then, { target: { value: "suggestion.score:stars" } });
    await waitFor(() =>
      expect(vm.criteria.toSearchBody().sort).toEqual([
        { scope: { entity: "metadata", metadata_property: "length" }, order: "desc" },
        { scope: { entity: "suggestion", question: "stars", property: "score" }, order: "asc" },
      ]),
    );
    expect(criteriaFromQuery("d", { _sort: String(criteriaToQuery(vm.criteria)._sort) }).sort).toEqual(vm.criteria.sort);
    fireEvent.click(screen.getByRole("button", { name: "Remove sort by LENGTH" }));
    await waitFor(() =>
      expect(vm.criteria.sort).toEqual([{ key: { entity: "suggestion", question: "stars", property: "score" }, order: "asc" }]),
    );
    fireEvent.change(screen.getByRole("combobox", { name: "Sort" }), { target: { value: "" } });
    await waitFor(() => expect(vm.criteria.isSorted).toBe(false));
  });

  it("ignores a hand-edited _sort or filter that is not a list of objects", () => {
    const c = criteriaFromQuery("d", {
      _sort: '{"key":1}',
      _response: "[1,null]",
      _metadata: '[{"kind":"terms","name":"a","values":["x"]}]',
    });
    expect([c.sort, c.responses, c.metadata.length]).toEqual([[], [], 1]);
    expect(criteriaFromQuery("d", { _sort: '[{"key":{"entity":"record","property":"updated_at"},"order":"sideways"}]' }).sort).toEqual([]);
  });
});

import { afterEach, describe, expect, it } from "vitest";
import { cleanup, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { MetadataProperty, PageCriteria, RecordCriteria, type DatasetSettings } from "@tessera/domain";
import { AnnotationViewModel } from "../annotation-view-model";
import { renderWithI18n } from "../component-test-utils";
import { FakeServer, recordProps } from "../test-fixtures";
import { FiltersBar } from "./FiltersBar";

afterEach(cleanup);
// jsdom has no ResizeObserver (Radix measures the popover's anchor with it); layout is not what these tests check
globalThis.ResizeObserver ??= class {
  observe() {}
  unobserve() {}
  disconnect() {}
};

const genre = new MetadataProperty({
  id: "m-genre",
  name: "genre",
  title: "Genre",
  settings: { type: "terms", values: ["news", "blog"] },
  visibleForAnnotators: true,
  datasetId: "d",
});

async function setUp(criteria: Partial<ConstructorParameters<typeof RecordCriteria>[0]> = {}) {
  const server = new FakeServer(Array.from({ length: 3 }, (_, i) => recordProps(i + 1)));
  const vm = new AnnotationViewModel(
    "d",
    server.useCases(),
    new RecordCriteria({ datasetId: "d", page: new PageCriteria(1, "focus"), ...criteria }),
  );
  await vm.load();
  const settings = { metadata: [genre], questions: [], fields: [], vectors: [] } as unknown as DatasetSettings;
  await renderWithI18n(<FiltersBar vm={vm} settings={settings} />);
  return vm;
}

describe("FiltersBar and its panel", () => {
  it("the Filters button opens the panel; its icon fills and a count shows once a filter is on", async () => {
    const vm = await setUp();
    const toggle = screen.getByRole("button", { name: "Filters" });
    expect(toggle.getAttribute("aria-expanded")).toBe("false");
    expect(screen.queryByRole("group", { name: "Filters" })).toBeNull();
    fireEvent.click(toggle);
    const panel = screen.getByRole("group", { name: "Filters" });
    expect(
      within(panel)
        .getAllByRole("button")
        .map((b) => b.textContent?.trim()),
    ).toEqual(["Metadata", "Responses", "Suggestions"]);
    vm.setCriteria((c) => {
      c.metadata = [{ kind: "terms", name: "genre", values: ["news"] }];
    });
    await waitFor(() => expect(toggle.textContent).toBe("Filters 1 active"));
    // the visible count is part of the name (label in name), with the word screen readers need
    expect(screen.getByRole("button", { name: "Filters 1 active" })).toBe(toggle);
    expect(document.querySelector(".icon--active")).not.toBeNull();
    screen.getByRole("button", { name: "Reset" });
  });

  it("a badge's × clears its filter and gives the focus to the next badge, then to the first category", async () => {
    const vm = await setUp({
      metadata: [{ kind: "terms", name: "genre", values: ["news"] }],
      suggestions: [{ kind: "terms", question: "sentiment", property: "agent", values: ["gpt-4"] }],
    });
    // the URL brought filters: the panel starts open, with their badges
    const clearGenre = screen.getByRole("button", { name: "Remove filter Genre: news" });
    fireEvent.click(clearGenre);
    await waitFor(() => expect(vm.criteria.metadata).toEqual([]));
    expect(document.activeElement?.getAttribute("aria-label")).toBe("Remove filter Sentiment · Agent: gpt-4");
    fireEvent.click(document.activeElement!);
    await waitFor(() => expect(vm.criteria.suggestions).toEqual([]));
    expect(document.activeElement?.textContent?.trim()).toBe("Metadata");
    expect(screen.queryByRole("button", { name: "Reset" })).toBeNull();
  });

  it("a badge opens its filter's editor in the category popover", async () => {
    await setUp({ metadata: [{ kind: "terms", name: "genre", values: ["news"] }] });
    fireEvent.click(screen.getByTitle("Edit Genre: news"));
    const popover = await screen.findByRole("dialog", { name: "Metadata" });
    within(popover).getByRole("heading", { name: "Genre" });
    expect((within(popover).getByRole("checkbox", { name: "news" }) as HTMLInputElement).checked).toBe(true);
  });
});

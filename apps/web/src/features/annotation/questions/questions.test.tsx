import { afterEach, describe, expect, it, vi } from "vitest";
import { act, cleanup, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { opts, questionProps, recordWith, renderWithI18n } from "../component-test-utils";
import { LabelQuestion } from "./LabelQuestion";
import { RatingQuestion } from "./RatingQuestion";
import { RankingQuestion } from "./RankingQuestion";
import { TextQuestion } from "./TextQuestion";
import { SpanQuestion } from "./SpanQuestion";
import { SpanText } from "../fields/SpanText";

/** The question container (receives the question's keys). */
const group = (name: string) => {
  const el = document.querySelector<HTMLElement>(`[data-question="${name.toLowerCase()}"]`);
  if (!el) throw new Error(`no question ${name}`);
  return el;
};

describe("LabelQuestion", () => {
  it("single label: chips carry number keys; a digit selects, the same digit unselects, and selection advances", async () => {
    const q = questionProps("sentiment", { type: "label_selection", options: opts("positive", "negative", "neutral") });
    const { record, form } = recordWith([q]);
    const question = record.question("sentiment")!;
    const onSelected = vi.fn();
    await renderWithI18n(<LabelQuestion record={record} question={question} form={form} onSelected={onSelected} />);
    const chips = screen.getAllByRole("radio");
    expect(chips.map((c) => c.textContent)).toEqual(["1positive", "2negative", "3neutral"]);
    expect(screen.getByLabelText("Required response")).toBeTruthy();
    fireEvent.keyDown(group("SENTIMENT"), { key: "2" });
    expect(question.answer.value).toBe("negative");
    expect(screen.getByRole("radio", { name: /negative/ }).getAttribute("aria-checked")).toBe("true");
    expect(onSelected).toHaveBeenCalledTimes(1);
    fireEvent.keyDown(group("SENTIMENT"), { key: "2" });
    expect(question.answer.value).toBeNull();
    fireEvent.click(screen.getByRole("radio", { name: /neutral/ }));
    expect(question.answer.value).toBe("neutral");
  });

  it("multi label: collapsed to visible_options with '+N' and 'Less'; selected ones beyond the cut-off stay visible", async () => {
    const q = questionProps(
      "topics",
      { type: "multi_label_selection", options: opts("a", "b", "c", "d", "e", "f"), visible_options: 3 },
      false,
    );
    const { record, form } = recordWith([q]);
    const question = record.question("topics")!;
    await renderWithI18n(<LabelQuestion record={record} question={question} form={form} />);
    expect(screen.getByText("(optional)")).toBeTruthy();
    expect(screen.getAllByRole("checkbox").map((c) => c.textContent)).toEqual(["1a", "2b", "3c"]);
    fireEvent.keyDown(group("TOPICS"), { key: "1" });
    fireEvent.keyDown(group("TOPICS"), { key: "3" });
    expect(question.answer.value).toEqual(["a", "c"]);
    fireEvent.click(screen.getByRole("button", { name: "+3" }));
    expect(screen.getAllByRole("checkbox")).toHaveLength(6);
    fireEvent.click(screen.getByRole("checkbox", { name: /f/ }));
    fireEvent.click(screen.getByRole("button", { name: "Less" }));
    // f is selected: it stays visible after collapsing
    expect(screen.getAllByRole("checkbox").map((c) => c.textContent)).toEqual(["1a", "2b", "3c", "4f"]);
    expect(screen.getByRole("button", { name: "+2" })).toBeTruthy();
    expect(question.answer.value).toEqual(["a", "c", "f"]);
  });

  it("typing a letter jumps to the label search, which filters the chips", async () => {
    const q = questionProps("topics", {
      type: "multi_label_selection",
      options: opts("apple", "banana", "cherry", "date"),
      visible_options: 2,
    });
    const { record, form } = recordWith([q]);
    await renderWithI18n(<LabelQuestion record={record} question={record.question("topics")!} form={form} />);
    fireEvent.keyDown(group("TOPICS"), { key: "b" });
    const search = screen.getByRole("searchbox", { name: "Search labels" });
    expect(document.activeElement).toBe(search);
    expect(screen.getAllByRole("checkbox").map((c) => c.textContent)).toEqual(["1banana"]);
  });

  it("suggested options show the sparkle with the score and the agent", async () => {
    const q = questionProps("sentiment", { type: "label_selection", options: opts("positive", "negative") });
    const { record, form } = recordWith([q], [], {
      suggestions: [{ id: "s", questionId: "q-sentiment", value: "positive", score: 0.87, agent: "gpt" }],
    });
    await renderWithI18n(<LabelQuestion record={record} question={record.question("sentiment")!} form={form} />);
    expect(screen.getByLabelText("Suggestion, score 0.9, by gpt")).toBeTruthy();
    expect(record.question("sentiment")?.answer.value).toBe("positive"); // pending record prefilled from the suggestion
  });
});

describe("RatingQuestion", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("digits pick a value, multi-digit '10' works, the same value again unrates, out of range is ignored", async () => {
    const q = questionProps("stars", { type: "rating", options: Array.from({ length: 10 }, (_, i) => ({ value: i + 1 })) });
    const { record, form } = recordWith([q]);
    const question = record.question("stars")!;
    const onSelected = vi.fn();
    await renderWithI18n(<RatingQuestion record={record} question={question} form={form} onSelected={onSelected} />);
    vi.useFakeTimers();
    fireEvent.keyDown(group("STARS"), { key: "3" });
    expect(question.answer.value).toBe(3);
    fireEvent.keyDown(group("STARS"), { key: "1" });
    expect(question.answer.value).toBe(3); // waits: 1 or 10
    fireEvent.keyDown(group("STARS"), { key: "0" });
    expect(question.answer.value).toBe(10);
    fireEvent.keyDown(group("STARS"), { key: "1" });
    act(() => {
      vi.advanceTimersByTime(300);
    });
    expect(question.answer.value).toBe(1);
    fireEvent.keyDown(group("STARS"), { key: "1" });
    act(() => {
      vi.advanceTimersByTime(300);
    });
    expect(question.answer.value).toBeNull();
    fireEvent.keyDown(group("STARS"), { key: "0" });
    expect(question.answer.value).toBeNull();
    expect(onSelected).toHaveBeenCalledTimes(3);
    fireEvent.click(screen.getByRole("radio", { name: "5" }));
    expect(screen.getByRole("radio", { name: "5" }).getAttribute("aria-checked")).toBe("true");
  });
});

describe("RankingQuestion keyboard", () => {
  it("a slot number moves the focused card there (focus returns to the first unranked card); Backspace unranks", async () => {
    const q = questionProps("order", { type: "ranking", options: opts("x", "y", "z") });
    const { record, form } = recordWith([q]);
    const question = record.question("order")!;
    await renderWithI18n(<RankingQuestion record={record} question={question} form={form} />);
    const unranked = screen.getByRole("list", { name: "Unranked options" });
    expect(
      within(unranked)
        .getAllByRole("listitem")
        .map((c) => c.textContent),
    ).toEqual(["x", "y", "z"]);
    const y = screen.getByRole("listitem", { name: "y" });
    y.focus();
    fireEvent.keyDown(y, { key: "2" });
    expect(question.answer.value).toEqual([
      { value: "x", rank: null },
      { value: "y", rank: 2 },
      { value: "z", rank: null },
    ]);
    expect(within(screen.getByRole("list", { name: "Rank 2" })).getByRole("listitem", { name: "y, rank 2" })).toBeTruthy();
    await waitFor(() => expect((document.activeElement as HTMLElement).getAttribute("data-rank-card")).toBe("x"));
    fireEvent.keyDown(screen.getByRole("listitem", { name: "x" }), { key: "1" });
    fireEvent.keyDown(screen.getByRole("listitem", { name: "z" }), { key: "3" });
    expect(question.answer.isValid).toBe(true);
    fireEvent.keyDown(screen.getByRole("listitem", { name: "y, rank 2" }), { key: "Backspace" });
    expect(question.answer.isPartiallyValid).toBe(true);
    expect(
      within(unranked)
        .getAllByRole("listitem")
        .map((c) => c.textContent),
    ).toEqual(["y"]);
  });
});

describe("TextQuestion", () => {
  it("writes into the text area (keys do not reach global shortcuts), previews sanitized markdown, Esc leaves the area", async () => {
    const q = questionProps("comment", { type: "text", use_markdown: true }, false);
    const { record, form, changes } = recordWith([q]);
    const question = record.question("comment")!;
    const outer = vi.fn();
    const view = await renderWithI18n(
      <div onKeyDown={outer}>
        <TextQuestion record={record} question={question} form={form} />
      </div>,
    );
    const area = screen.getByRole("textbox", { name: "COMMENT" });
    fireEvent.change(area, { target: { value: "**bold** <img src=x onerror=alert(1)> [link](http://example.com)" } });
    expect(question.answer.value).toContain("**bold**");
    expect(changes).toEqual(["comment"]);
    fireEvent.keyDown(area, { key: "Enter" });
    expect(outer).not.toHaveBeenCalled();
    fireEvent.keyDown(area, { key: "Escape" });
    expect(document.activeElement).toBe(group("COMMENT"));
    fireEvent.click(screen.getByRole("tab", { name: "Preview" }));
    expect(screen.queryByRole("textbox")).toBeNull();
    const preview = view.container.querySelector(".text-preview")!;
    expect(preview.querySelector("strong")?.textContent).toBe("bold");
    expect(preview.querySelector("img")?.getAttribute("onerror")).toBeNull();
    expect(preview.querySelector("a")?.getAttribute("target")).toBe("_blank");
    fireEvent.click(screen.getByRole("tab", { name: "Write" }));
    expect(screen.getByRole("textbox", { name: "COMMENT" })).toBeTruthy();
  });

  it("without use_markdown there is no preview toggle", async () => {
    const { record, form } = recordWith([questionProps("comment", { type: "text", use_markdown: false })]);
    await renderWithI18n(<TextQuestion record={record} question={record.question("comment")!} form={form} />);
    expect(screen.queryByRole("tab")).toBeNull();
  });
});

describe("span question and span text", () => {
  const spanQuestion = questionProps(
    "entities",
    { type: "span", field: "text", options: opts("PER", "ORG"), allow_character_annotation: true },
    false,
  );
  const textField = { id: "f", name: "text", title: "Text", required: true, datasetId: "d", settings: { type: "text" as const } };
  const TEXT = "Alice works at Acme today";

  function installHighlights() {
    const highlights = new Map<string, unknown>();
    Object.defineProperty(CSS, "highlights", { configurable: true, value: highlights });
    (globalThis as { Highlight?: unknown }).Highlight = class {
      constructor(...ranges: Range[]) {
        Object.assign(this, { ranges });
      }
    };
    const rect = { left: 0, top: 0, bottom: 10, right: 10, width: 10, height: 10, x: 0, y: 0, toJSON: () => ({}) } as DOMRect;
    const proto = Range.prototype as unknown as { getClientRects?: () => DOMRect[]; getBoundingClientRect?: () => DOMRect };
    proto.getClientRects = () => [rect];
    proto.getBoundingClientRect = () => rect;
    return () => {
      Reflect.deleteProperty(CSS, "highlights");
      delete (globalThis as { Highlight?: unknown }).Highlight;
    };
  }

  function select(node: Node, start: number, end: number) {
    const range = document.createRange();
    range.setStart(node, start);
    range.setEnd(node, end);
    const selection = window.getSelection()!;
    selection.removeAllRanges();
    selection.addRange(range);
  }

  it("picking an entity (click or digit) then selecting text creates a span snapped to words; × removes it", async () => {
    const uninstall = installHighlights();
    try {
      const { record, form } = recordWith([spanQuestion], [textField]);
      const question = record.question("entities")!;
      await renderWithI18n(
        <>
          <SpanQuestion question={question} form={form} />
          <SpanText record={record} question={question} text={TEXT} form={form} />
        </>,
      );
      expect(screen.getByRole("radio", { name: /PER/ }).getAttribute("aria-checked")).toBe("true"); // first entity by default
      fireEvent.keyDown(group("ENTITIES"), { key: "2" });
      expect(screen.getByRole("radio", { name: /ORG/ }).getAttribute("aria-checked")).toBe("true");
      const content = screen.getByTestId("span-text-entities");
      expect(content.getAttribute("title")).toBe("Select text to label it as ORG");
      select(content.firstChild!, 16, 18); // inside "Acme"
      fireEvent.mouseUp(content);
      expect(question.answer.value).toEqual([{ start: 15, end: 19, label: "ORG" }]);
      fireEvent.click(screen.getByRole("radio", { name: /PER/ }));
      select(content.firstChild!, 1, 3); // "lic" with Shift: character level
      fireEvent.mouseUp(content, { shiftKey: true });
      expect(question.answer.value).toEqual([
        { start: 1, end: 3, label: "PER" },
        { start: 15, end: 19, label: "ORG" },
      ]);
      expect(screen.getByText("Pick a label, then select text in the record to annotate it (2 spans).")).toBeTruthy();
      fireEvent.click(await screen.findByRole("button", { name: 'Remove ORG from "Acme"' }));
      expect(question.answer.value).toEqual([{ start: 1, end: 3, label: "PER" }]);
      // a whitespace-only selection is ignored
      select(content.firstChild!, 5, 6);
      fireEvent.mouseUp(content);
      expect(question.answer.value).toHaveLength(1);
    } finally {
      cleanup();
      uninstall();
    }
  });

  it("without the Highlight API the text shows with 'Span annotation is not supported for your browser'", async () => {
    const { record, form } = recordWith([spanQuestion], [textField]);
    await renderWithI18n(<SpanText record={record} question={record.question("entities")!} text={TEXT} form={form} />);
    expect(screen.getByRole("alert").textContent).toBe("Span annotation is not supported for your browser");
    expect(screen.getByText(TEXT)).toBeTruthy();
  });
});

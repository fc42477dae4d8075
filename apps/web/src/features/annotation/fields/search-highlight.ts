import { useLayoutEffect } from "react";

/** Whether the browser has the CSS Custom Highlight API (SpanText and the search highlight use it). */
export function supportsHighlights(): boolean {
  return typeof CSS !== "undefined" && "highlights" in CSS && typeof (globalThis as { Highlight?: unknown }).Highlight === "function";
}

/** Paints the matches of a text search inside an element with the CSS Custom Highlight API. */
export function useSearchHighlight(ref: React.RefObject<HTMLElement | null>, name: string, query: string, content: unknown) {
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el || !supportsHighlights()) return;
    const highlightName = `search-text-highlight-${name.replace(/[^a-zA-Z0-9_-]/g, "_")}`;
    const terms = query
      .trim()
      .toLowerCase()
      .split(/\s+/)
      .filter((w) => w.length > 0);
    const registry = (CSS as unknown as { highlights: { set(n: string, h: unknown): void; delete(n: string): void } }).highlights;
    if (terms.length === 0) {
      registry.delete(highlightName);
      return;
    }
    const ranges: Range[] = [];
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = (node.textContent ?? "").toLowerCase();
      for (const term of terms) {
        for (let i = text.indexOf(term); i >= 0; i = text.indexOf(term, i + term.length)) {
          const range = document.createRange();
          range.setStart(node, i);
          range.setEnd(node, i + term.length);
          ranges.push(range);
        }
      }
    }
    const Highlight = (globalThis as unknown as { Highlight: new (...r: Range[]) => unknown }).Highlight;
    registry.set(highlightName, new Highlight(...ranges));
    return () => registry.delete(highlightName);
  }, [ref, name, query, content]);
}

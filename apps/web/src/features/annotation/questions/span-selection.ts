import type { SpanItem } from "@tessera/domain";

/**
 * A word character: a digit, or a letter (a character whose upper and lower case differ). Letters
 * of caseless scripts (Hebrew, Arabic, CJK...) and combining marks count too, so that snapping
 * works for every language.
 */
export function isWordChar(char: string | undefined): boolean {
  if (char === undefined || char === "") return false;
  if (/\s/u.test(char)) return false;
  if (/[\p{N}\p{L}\p{M}]/u.test(char)) return true;
  return char.toUpperCase() !== char.toLowerCase();
}

/**
 * Turns a raw selection into a span range. Leading and trailing whitespace is trimmed, a
 * whitespace-only selection gives null. Token level (the default) expands outward to word
 * boundaries; character level keeps the exact (trimmed) range.
 */
export function snapSelection(text: string, start: number, end: number, characterLevel: boolean): { start: number; end: number } | null {
  let s = Math.max(0, Math.min(start, end));
  let e = Math.min(text.length, Math.max(start, end));
  while (s < e && /\s/u.test(text[s] ?? "")) s++;
  while (e > s && /\s/u.test(text[e - 1] ?? "")) e--;
  if (s >= e) return null;
  if (!characterLevel) {
    while (s > 0 && isWordChar(text[s - 1]) && isWordChar(text[s])) s--;
    while (e < text.length && isWordChar(text[e]) && isWordChar(text[e - 1])) e++;
  }
  return { start: s, end: e };
}

const overlaps = (a: SpanItem, b: { start: number; end: number }) => a.start < b.end && b.start < a.end;

/**
 * Adds a span. Without overlapping, the new span replaces every span it overlaps; with it, spans
 * stack (an identical span is not added twice).
 */
export function addSpan(spans: readonly SpanItem[], span: SpanItem, allowOverlapping: boolean): SpanItem[] {
  if (allowOverlapping) {
    if (spans.some((s) => s.start === span.start && s.end === span.end && s.label === span.label)) return [...spans];
    return sortSpans([...spans, span]);
  }
  return sortSpans([...spans.filter((s) => !overlaps(s, span)), span]);
}

export function removeSpan(spans: readonly SpanItem[], span: SpanItem): SpanItem[] {
  return spans.filter((s) => !(s.start === span.start && s.end === span.end && s.label === span.label));
}

export function sortSpans(spans: SpanItem[]): SpanItem[] {
  return spans.sort((a, b) => a.start - b.start || a.end - b.end || a.label.localeCompare(b.label));
}

/** Stacking level of each span: each overlap with an earlier span bumps the level (0-based). */
export function spanLevels(spans: readonly SpanItem[]): number[] {
  const placed: Array<{ span: SpanItem; level: number }> = [];
  return spans.map((span) => {
    const used = new Set(placed.filter((p) => overlaps(p.span, span)).map((p) => p.level));
    let level = 0;
    while (used.has(level)) level++;
    placed.push({ span, level });
    return level;
  });
}

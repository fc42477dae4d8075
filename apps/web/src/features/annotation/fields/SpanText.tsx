import { useLayoutEffect, useRef, useState, type MouseEvent } from "react";
import { observer } from "mobx-react-lite";
import { useTranslation } from "react-i18next";
import { Suggestion, type DatasetRecord, type Question, type SpanItem } from "@tessera/domain";
import type { FormController } from "../form-controller";
import { addSpan, removeSpan, snapSelection, spanLevels } from "../questions/span-selection";
import { textDirection } from "../../../shared/text-direction";
import { supportsHighlights, useSearchHighlight } from "./search-highlight";
import { SuggestionIcon } from "../questions/SuggestionIcon";

/** Whether the CSS Custom Highlight API (used to paint spans) exists in this browser. */
interface HighlightRegistry {
  set(name: string, h: unknown): void;
  delete(name: string): void;
}
const registry = (): HighlightRegistry => (CSS as unknown as { highlights: HighlightRegistry }).highlights;
type HighlightCtor = new (...ranges: Range[]) => unknown;

/** Character offset of a DOM position inside a container (counting text only). */
function offsetIn(container: Node, node: Node, offset: number): number {
  const range = document.createRange();
  range.selectNodeContents(container);
  range.setEnd(node, offset);
  return range.toString().length;
}

const cssName = (s: string) => s.replace(/[^a-zA-Z0-9_-]/g, "_");

interface BadgePosition {
  span: SpanItem;
  left: number;
  top: number;
  level: number;
}

/**
 * A text field annotated by a span question: select text with the mouse to label it with the
 * entity picked in the form (word snapping; character level while holding Shift when allowed).
 * Spans are painted with the CSS Custom Highlight API; each has a badge with a remove button.
 */
export const SpanText = observer(function SpanText({
  record,
  question,
  text,
  form,
  disabled = false,
  search = "",
}: {
  record: DatasetRecord;
  question: Question;
  text: string;
  form: FormController;
  disabled?: boolean;
  search?: string;
}) {
  const { t } = useTranslation();
  form.track();
  const textRef = useRef<HTMLDivElement>(null);
  const [badges, setBadges] = useState<BadgePosition[]>([]);
  const [hint, setHint] = useState(false);
  const supported = supportsHighlights();
  const spans = (question.answer.value as SpanItem[] | null) ?? [];
  const options = question.options;
  const colorOf = (label: string) => options.find((o) => String(o.value) === label)?.color ?? "hsl(0, 0%, 80%)";
  const prefix = `tsp-${cssName(record.id)}-${cssName(question.name)}`;
  const entity = form.entityFor(question);
  const entityText = options.find((o) => String(o.value) === entity)?.text ?? entity;
  const allowCharacter = question.settings.allow_character_annotation ?? false;
  const key = JSON.stringify(spans);
  useSearchHighlight(textRef, question.settings.field ?? question.name, search, text);

  useLayoutEffect(() => {
    const node = textRef.current?.firstChild;
    if (!supported || !node || !textRef.current) return;
    const names: string[] = [];
    const Highlight = (globalThis as unknown as { Highlight: HighlightCtor }).Highlight;
    const levels = spanLevels(spans);
    const box = textRef.current.getBoundingClientRect();
    const positions: BadgePosition[] = [];
    options.forEach((o, i) => {
      const ranges = spans
        .filter((s) => s.label === String(o.value))
        .map((s) => {
          const range = document.createRange();
          range.setStart(node, Math.min(s.start, text.length));
          range.setEnd(node, Math.min(s.end, text.length));
          return range;
        });
      const name = `${prefix}-${i}`;
      names.push(name);
      registry().set(name, new Highlight(...ranges));
    });
    spans.forEach((s, i) => {
      const range = document.createRange();
      range.setStart(node, Math.min(s.start, text.length));
      range.setEnd(node, Math.min(s.end, text.length));
      const rect = range.getClientRects()[0] ?? range.getBoundingClientRect();
      positions.push({ span: s, left: rect.left - box.left, top: rect.bottom - box.top, level: levels[i] ?? 0 });
    });
    setBadges(positions);
    return () => {
      for (const n of names) registry().delete(n);
    };
  }, [key, text, supported, prefix]);

  if (!supported) {
    return (
      <div>
        <div className="field-text" dir={textDirection(text)}>
          {text}
        </div>
        <p role="alert" className="form-error">
          {t("annotation.span.notSupported")}
        </p>
      </div>
    );
  }

  const onMouseUp = (event: MouseEvent) => {
    const selection = window.getSelection();
    const container = textRef.current;
    if (disabled || !selection || selection.isCollapsed || selection.rangeCount === 0 || !container || entity === null) return;
    const range = selection.getRangeAt(0);
    if (!container.contains(range.startContainer) || !container.contains(range.endContainer)) return;
    const start = offsetIn(container, range.startContainer, range.startOffset);
    const end = offsetIn(container, range.endContainer, range.endOffset);
    const characterLevel = allowCharacter && event.shiftKey;
    const snapped = snapSelection(text, start, end, characterLevel);
    selection.removeAllRanges();
    setHint(false);
    if (!snapped) return;
    form.set(record, question, addSpan(spans, { ...snapped, label: entity }, question.settings.allow_overlapping ?? false));
  };

  const rules = options
    .map((o, i) => `::highlight(${prefix}-${i}) { background-color: ${o.color ?? "hsl(0,0%,80%)"}; color: #1b1b1f; }`)
    .join("\n");

  return (
    <div className="span-text" data-span-question={question.name}>
      <style>{rules}</style>
      <div
        ref={textRef}
        className="span-text__content"
        dir={textDirection(text)}
        data-testid={`span-text-${question.name}`}
        title={entityText ? t("annotation.span.cursor", { entity: entityText }) : undefined}
        onMouseDown={() => {
          if (allowCharacter) setHint(true);
        }}
        onMouseUp={onMouseUp}
      >
        {text}
      </div>
      {hint && (
        <span className="span-text__hint" role="status">
          {t("annotation.span.shiftHint")}
        </span>
      )}
      <div className="span-text__badges">
        {badges.map((b) => {
          const label = options.find((o) => String(o.value) === b.span.label);
          const suggested = question.suggestion?.spanFor(b.span);
          return (
            <span
              key={`${b.span.start}-${b.span.end}-${b.span.label}`}
              className="span-badge"
              data-span={`${b.span.start}-${b.span.end}`}
              style={{ left: b.left, top: b.top + b.level * 16, borderColor: colorOf(b.span.label), background: colorOf(b.span.label) }}
            >
              {suggested && (
                <span aria-label={t("annotation.suggestion.label")}>
                  <SuggestionIcon />
                  {Suggestion.formatScore(suggested.score)}
                </span>
              )}
              {label?.text ?? b.span.label}
              {!disabled && (
                <button
                  type="button"
                  aria-label={t("annotation.span.remove", {
                    label: label?.text ?? b.span.label,
                    text: text.slice(b.span.start, b.span.end),
                  })}
                  onClick={() => form.set(record, question, removeSpan(spans, b.span))}
                >
                  ×
                </button>
              )}
            </span>
          );
        })}
      </div>
    </div>
  );
});

import { useMemo, useRef, useState, type KeyboardEvent } from "react";
import { observer } from "mobx-react-lite";
import { useTranslation } from "react-i18next";
import type { DatasetRecord, OptionValue, Question, QuestionOption } from "@tessera/domain";
import type { FormController } from "../form-controller";
import { DigitBuffer } from "./digit-buffer";
import { QuestionShell, SuggestionMark } from "./QuestionShell";

/** The search box appears with 15 or more options, or when the list is collapsed. */
export const SEARCH_FROM_OPTIONS = 15;

export const optionLabel = (o: QuestionOption) => o.text ?? String(o.value);

/**
 * Which options show: all, or (collapsed) the first `visible_options` plus selected ones beyond
 * the cut-off; filtered by the search text. `hidden` is the '+N' count.
 */
export function visibleLabelOptions(
  question: Question,
  selected: OptionValue[],
  expanded: boolean,
  search: string,
): { shown: QuestionOption[]; hidden: number; collapsible: boolean } {
  const options = question.orderedOptions;
  const collapsible = question.showVisibleOptions && question.visibleOptions < options.length;
  const term = search.trim().toLowerCase();
  const filtered = term ? options.filter((o) => optionLabel(o).toLowerCase().includes(term)) : options;
  if (!collapsible || expanded || term) return { shown: filtered, hidden: 0, collapsible };
  const shown = filtered.filter((o, i) => i < question.visibleOptions || selected.includes(o.value));
  return { shown, hidden: filtered.length - shown.length, collapsible };
}

/** Single-label (pills, radio) and multi-label (chips, checkboxes) questions. */
export const LabelQuestion = observer(function LabelQuestion({
  record,
  question,
  form,
  onSelected,
  disabled = false,
}: {
  record: DatasetRecord;
  question: Question;
  form: FormController;
  onSelected?: () => void;
  disabled?: boolean;
}) {
  const { t } = useTranslation();
  form.track();
  const [expanded, setExpanded] = useState(false);
  const [search, setSearch] = useState("");
  const searchRef = useRef<HTMLInputElement>(null);
  const buffer = useMemo(() => new DigitBuffer(), []);
  const multi = question.type === "multi_label_selection";
  const value = question.answer.value;
  const selected: OptionValue[] = multi ? ((value as OptionValue[] | null) ?? []) : value === null ? [] : [value as OptionValue];
  const { shown, hidden, collapsible } = visibleLabelOptions(question, selected, expanded, search);
  const showSearch = question.options.length >= SEARCH_FROM_OPTIONS || collapsible;

  const toggle = (o: QuestionOption) => {
    if (disabled) return;
    const isOn = selected.includes(o.value);
    if (multi) form.set(record, question, isOn ? selected.filter((v) => v !== o.value) : [...selected, o.value]);
    else {
      form.set(record, question, isOn ? null : o.value);
      if (!isOn) onSelected?.();
    }
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.target instanceof HTMLInputElement || event.ctrlKey || event.metaKey || event.altKey) return;
    if (/^\d$/.test(event.key)) {
      event.preventDefault();
      event.stopPropagation();
      buffer.push(event.key, shown.length, (i) => {
        const o = shown[i - 1];
        if (o) toggle(o);
      });
    } else if (showSearch && event.key.length === 1 && event.key !== " " && !event.shiftKey) {
      event.preventDefault();
      event.stopPropagation();
      setSearch(event.key);
      searchRef.current?.focus();
    }
  };

  return (
    <QuestionShell question={question} form={form} onKeyDown={onKeyDown}>
      {showSearch && (
        <input
          ref={searchRef}
          type="search"
          className="question__search"
          placeholder={t("annotation.questions.searchLabels")}
          aria-label={t("annotation.questions.searchLabels")}
          value={search}
          onChange={(e) => setSearch(e.target.value)}
          onKeyDown={(e) => {
            e.stopPropagation();
            if (e.key === "Escape") {
              setSearch("");
              (e.currentTarget.closest("[data-question]") as HTMLElement | null)?.focus();
            }
          }}
        />
      )}
      <div
        className={`chips ${multi ? "chips--multi" : "chips--single"}`}
        role={multi ? "group" : "radiogroup"}
        aria-label={question.title}
      >
        {shown.map((o, i) => {
          const on = selected.includes(o.value);
          const s = question.suggestion;
          return (
            <button
              key={String(o.value)}
              type="button"
              role={multi ? "checkbox" : "radio"}
              aria-checked={on}
              className={`chip${on ? " chip--on" : ""}`}
              disabled={disabled}
              title={o.description ?? undefined}
              onClick={() => toggle(o)}
              onKeyDown={(e) => {
                if (e.key === "Enter") e.preventDefault();
              }}
            >
              <kbd className="chip__key">{i + 1}</kbd>
              <span>{optionLabel(o)}</span>
              {s?.isSuggested(o.value) && <SuggestionMark suggestion={s} score={s.scoreFor(o.value)} />}
            </button>
          );
        })}
        {collapsible && !search && hidden > 0 && (
          <button type="button" className="chip chip--more" onClick={() => setExpanded(true)}>
            +{hidden}
          </button>
        )}
        {collapsible && !search && expanded && (
          <button type="button" className="chip chip--more" onClick={() => setExpanded(false)}>
            {t("annotation.questions.less")}
          </button>
        )}
      </div>
    </QuestionShell>
  );
});

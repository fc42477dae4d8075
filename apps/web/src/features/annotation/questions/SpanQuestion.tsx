import { useMemo, useState, type KeyboardEvent } from "react";
import { observer } from "mobx-react-lite";
import { useTranslation } from "react-i18next";
import type { Question, SpanItem } from "@tessera/domain";
import type { FormController } from "../form-controller";
import { DigitBuffer } from "./digit-buffer";
import { optionLabel, SEARCH_FROM_OPTIONS } from "./LabelQuestion";
import { QuestionShell } from "./QuestionShell";

/**
 * The span question in the form: the entity picker (the label used for the next selection in the
 * field text) and the number of spans. Spans themselves are drawn on the record's text.
 */
export const SpanQuestion = observer(function SpanQuestion({ question, form }: { question: Question; form: FormController }) {
  const { t } = useTranslation();
  form.track();
  const [search, setSearch] = useState("");
  const buffer = useMemo(() => new DigitBuffer(), []);
  const entity = form.entityFor(question);
  const term = search.trim().toLowerCase();
  const options = term ? question.options.filter((o) => optionLabel(o).toLowerCase().includes(term)) : question.options;
  const count = ((question.answer.value as SpanItem[] | null) ?? []).length;

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.target instanceof HTMLInputElement || !/^\d$/.test(event.key) || event.ctrlKey || event.metaKey) return;
    event.preventDefault();
    event.stopPropagation();
    buffer.push(event.key, options.length, (i) => {
      const o = options[i - 1];
      if (o) form.pickEntity(question.name, String(o.value));
    });
  };

  return (
    <QuestionShell question={question} form={form} onKeyDown={onKeyDown}>
      {question.options.length >= SEARCH_FROM_OPTIONS && (
        <input
          type="search"
          className="question__search"
          placeholder={t("annotation.questions.searchLabels")}
          aria-label={t("annotation.questions.searchLabels")}
          value={search}
          onChange={(e) => setSearch(e.target.value)}
          onKeyDown={(e) => e.stopPropagation()}
        />
      )}
      <div className="chips chips--span" role="radiogroup" aria-label={question.title}>
        {options.map((o, i) => {
          const on = entity === String(o.value);
          return (
            <button
              key={String(o.value)}
              type="button"
              role="radio"
              aria-checked={on}
              className={`chip chip--entity${on ? " chip--on" : ""}`}
              style={{ borderColor: o.color, background: on ? o.color : undefined }}
              onClick={() => form.pickEntity(question.name, String(o.value))}
              onKeyDown={(e) => {
                if (e.key === "Enter") e.preventDefault();
              }}
            >
              <kbd className="chip__key">{i + 1}</kbd>
              {optionLabel(o)}
            </button>
          );
        })}
      </div>
      <p className="question__hint">{t("annotation.span.instructions", { count })}</p>
    </QuestionShell>
  );
});

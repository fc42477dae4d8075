import { useMemo, type KeyboardEvent } from "react";
import { observer } from "mobx-react-lite";
import type { DatasetRecord, Question } from "@tessera/domain";
import type { FormController } from "../form-controller";
import { DigitBuffer } from "./digit-buffer";
import { QuestionShell, SuggestionMark } from "./QuestionShell";

/** A row of numbered chips; digits pick a value (multi-digit with 300 ms), the same value again unrates. */
export const RatingQuestion = observer(function RatingQuestion({
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
  form.track();
  const buffer = useMemo(() => new DigitBuffer(), []);
  const options = question.options;
  const value = question.answer.value;
  const max = Math.max(0, ...options.map((o) => Number(o.value)).filter(Number.isFinite));

  const pick = (v: number | string) => {
    if (disabled) return;
    const same = value === v;
    form.set(record, question, same ? null : v);
    if (!same) onSelected?.();
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (!/^\d$/.test(event.key) || event.ctrlKey || event.metaKey) return;
    event.preventDefault();
    event.stopPropagation();
    buffer.push(event.key, max, (n) => {
      const o = options.find((x) => Number(x.value) === n);
      if (o) pick(o.value);
    });
  };

  return (
    <QuestionShell question={question} form={form} onKeyDown={onKeyDown}>
      <div className="chips chips--rating" role="radiogroup" aria-label={question.title}>
        {options.map((o) => {
          const s = question.suggestion;
          return (
            <button
              key={String(o.value)}
              type="button"
              role="radio"
              aria-checked={value === o.value}
              className={`chip chip--rating${value === o.value ? " chip--on" : ""}`}
              disabled={disabled}
              onClick={() => pick(o.value)}
              onKeyDown={(e) => {
                if (e.key === "Enter") e.preventDefault();
              }}
            >
              {o.text ?? String(o.value)}
              {s?.isSuggested(o.value) && <SuggestionMark suggestion={s} score={s.scoreFor(o.value)} />}
            </button>
          );
        })}
      </div>
    </QuestionShell>
  );
});

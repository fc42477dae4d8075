import { useRef, type KeyboardEvent } from "react";
import { observer } from "mobx-react-lite";
import type { DatasetRecord, Question } from "@tessera/domain";
import type { FormController } from "../form-controller";
import { LabelQuestion } from "./LabelQuestion";
import { RatingQuestion } from "./RatingQuestion";
import { RankingQuestion } from "./RankingQuestion";
import { TextQuestion } from "./TextQuestion";
import { SpanQuestion } from "./SpanQuestion";

/** Focuses a question container by index within a form element. */
export function focusQuestion(form: HTMLElement | null, index: number, options?: FocusOptions): void {
  const questions = form?.querySelectorAll<HTMLElement>("[data-question]");
  if (!questions || questions.length === 0) return;
  questions[Math.max(0, Math.min(index, questions.length - 1))]?.focus(options);
}

/**
 * A new record takes the keyboard: its first question gets the focus without scrolling the page to the form (on a
 * phone the form is under the record, which is what to read first). When the page is scrolled past `top` (the record's
 * navigation, e.g. after Submit at the foot of a long form), `top` comes back into view.
 */
export function focusNewRecord(form: HTMLElement | null, top: HTMLElement | null): void {
  focusQuestion(form, 0, { preventScroll: true });
  if (top && top.getBoundingClientRect().top < 0) top.scrollIntoView?.({ block: "start" });
}

/**
 * The questions of one record. Single-label and rating selections move focus to the next question;
 * Ctrl+↓/↑ (or ↓/↑ on a question) move between questions. `onAutoSubmit` is called when the record
 * has exactly one question, single-label or rating, and the user picked a value.
 */
export const QuestionsForm = observer(function QuestionsForm({
  record,
  form,
  onAutoSubmit,
  disabled = false,
}: {
  record: DatasetRecord;
  form: FormController;
  onAutoSubmit?: () => void;
  disabled?: boolean;
}) {
  const ref = useRef<HTMLDivElement>(null);
  const questions = record.questions;
  const advance = (q: Question) => {
    if (questions.length === 1 && (q.type === "label_selection" || q.type === "rating")) {
      onAutoSubmit?.();
      return;
    }
    const i = questions.indexOf(q);
    if (i < questions.length - 1) focusQuestion(ref.current, i + 1);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key !== "ArrowDown" && event.key !== "ArrowUp") return;
    const target = event.target as HTMLElement;
    if (target.tagName === "TEXTAREA" || target.tagName === "INPUT") return;
    const current = target.closest<HTMLElement>("[data-question]");
    if (!current) return;
    const all = [...(ref.current?.querySelectorAll<HTMLElement>("[data-question]") ?? [])];
    event.preventDefault();
    focusQuestion(ref.current, all.indexOf(current) + (event.key === "ArrowDown" ? 1 : -1));
  };
  return (
    <div className="questions" ref={ref} onKeyDown={onKeyDown}>
      {questions.map((q) => {
        switch (q.type) {
          case "label_selection":
          case "multi_label_selection":
            return <LabelQuestion key={q.id} record={record} question={q} form={form} onSelected={() => advance(q)} disabled={disabled} />;
          case "rating":
            return <RatingQuestion key={q.id} record={record} question={q} form={form} onSelected={() => advance(q)} disabled={disabled} />;
          case "ranking":
            return <RankingQuestion key={q.id} record={record} question={q} form={form} disabled={disabled} />;
          case "text":
            return <TextQuestion key={q.id} record={record} question={q} form={form} disabled={disabled} />;
          case "span":
            return <SpanQuestion key={q.id} question={q} form={form} />;
          default:
            return null;
        }
      })}
    </div>
  );
});

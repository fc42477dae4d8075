import { useRef, useState, type KeyboardEvent } from "react";
import { observer } from "mobx-react-lite";
import { useTranslation } from "react-i18next";
import type { DatasetRecord, Question } from "@tessera/domain";
import type { FormController } from "../form-controller";
import { Markdown } from "../fields/RecordFields";
import { QuestionShell } from "./QuestionShell";

/** Free text; Shift+Enter (or Enter) on the question activates the text area, Esc leaves it. Markdown preview when use_markdown. */
export const TextQuestion = observer(function TextQuestion({
  record,
  question,
  form,
  disabled = false,
}: {
  record: DatasetRecord;
  question: Question;
  form: FormController;
  disabled?: boolean;
}) {
  const { t } = useTranslation();
  form.track();
  const [preview, setPreview] = useState(false);
  const ref = useRef<HTMLTextAreaElement>(null);
  const value = (question.answer.value as string | null) ?? "";

  const onShellKey = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.target === ref.current) return;
    if (event.key === "Enter" && event.shiftKey) {
      event.preventDefault();
      event.stopPropagation();
      setPreview(false);
      setTimeout(() => ref.current?.focus(), 0);
    }
  };

  return (
    <QuestionShell question={question} form={form} onKeyDown={onShellKey}>
      {question.useMarkdown && (
        <div className="segmented" role="tablist">
          <button type="button" role="tab" aria-selected={!preview} onClick={() => setPreview(false)}>
            {t("annotation.questions.write")}
          </button>
          <button type="button" role="tab" aria-selected={preview} onClick={() => setPreview(true)}>
            {t("annotation.questions.preview")}
          </button>
        </div>
      )}
      {preview ? (
        <div className="text-preview">
          <Markdown text={value} />
        </div>
      ) : (
        <textarea
          ref={ref}
          className="question__textarea"
          aria-label={question.title}
          placeholder={t("annotation.questions.textPlaceholder")}
          value={value}
          disabled={disabled}
          rows={3}
          onChange={(e) => form.set(record, question, e.target.value)}
          onKeyDown={(e) => {
            e.stopPropagation(); // while editing no global shortcut fires
            if (e.key === "Escape") {
              e.preventDefault();
              (e.currentTarget.closest("[data-question]") as HTMLElement | null)?.focus();
            }
          }}
        />
      )}
    </QuestionShell>
  );
});

import type { KeyboardEvent, ReactNode } from "react";
import { observer } from "mobx-react-lite";
import { useTranslation } from "react-i18next";
import { Suggestion, type Question } from "@tessera/domain";
import type { FormController } from "../form-controller";
import { SuggestionIcon } from "./SuggestionIcon";

/** A suggestion mark: sparkle plus the score with 1 decimal; the title names the agent. */
export function SuggestionMark({ suggestion, score }: { suggestion: Suggestion; score: number | null }) {
  const { t } = useTranslation();
  const agent = suggestion.agent ?? "";
  return (
    <span
      className="suggestion-mark"
      title={t("annotation.suggestion.tooltip", { agent })}
      aria-label={t("annotation.suggestion.aria", { score: Suggestion.formatScore(score), agent })}
    >
      <SuggestionIcon />
      {score !== null && <span className="suggestion-mark__score">{Suggestion.formatScore(score)}</span>}
    </span>
  );
}

/** Title, required asterisk or '(optional)', description and suggestion agent of a question, and its key handling. */
export const QuestionShell = observer(function QuestionShell({
  question,
  form,
  onKeyDown,
  children,
}: {
  question: Question;
  form: FormController;
  onKeyDown?: (event: KeyboardEvent<HTMLDivElement>) => void;
  children: ReactNode;
}) {
  const { t } = useTranslation();
  const titleId = `question-${question.name}-title`;
  const s = question.suggestion;
  return (
    <div
      className={`question question--${question.type}${form.activeQuestion === question.name ? " question--active" : ""}`}
      role="group"
      aria-labelledby={titleId}
      data-question={question.name}
      tabIndex={-1}
      onFocus={() => form.activate(question.name)}
      onKeyDown={onKeyDown}
    >
      <div className="question__header">
        <h3 id={titleId} className="question__title">
          {question.title}
          {question.isRequired ? (
            <span
              className="question__required"
              title={t("annotation.questions.requiredResponse")}
              aria-label={t("annotation.questions.requiredResponse")}
            >
              *
            </span>
          ) : (
            <span className="question__optional"> {t("annotation.questions.optional")}</span>
          )}
        </h3>
        {s && s.agent && (
          <span className="question__agent" title={t("annotation.suggestion.tooltip", { agent: s.agent })}>
            <SuggestionIcon /> {s.agent}
          </span>
        )}
      </div>
      {question.description && <p className="question__description">{question.description}</p>}
      {children}
    </div>
  );
});

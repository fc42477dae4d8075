import { useState } from "react";
import { observer } from "mobx-react-lite";
import { useTranslation } from "react-i18next";
import { responseFilterKinds, suggestionFilterProperties, type OptionValue, type Question, type ResponseFilter } from "@tessera/domain";
import type { AnnotationViewModel } from "../annotation-view-model";
import { ChoiceGroup, RangeFilter, TermsChecklist } from "./filter-controls";
import { optionText, type SuggestionProperty } from "./filters-panel-view-model";

const RESPONSE_MODES = ["terms", "range"] as const;
const optionLabel = (question: Question) => (v: OptionValue) => optionText(question, v);
const optionValues = (question: Question) => question.options.map((o) => o.value);

/**
 * Response filter of one question: option values (label, multi-label, rating), a value range (rating, 'Filter by'),
 * or an exact answer (text).
 */
export const ResponseFilterEditor = observer(function ResponseFilterEditor({
  vm,
  question,
}: {
  vm: AnnotationViewModel;
  question: Question;
}) {
  const { t } = useTranslation();
  void vm.revision;
  const kinds = responseFilterKinds(question.type);
  const current = vm.criteria.responses.find((r) => r.question === question.name);
  const [kind, setKind] = useState(current?.kind === "range" ? "range" : (kinds[0] ?? "terms"));
  const [text, setText] = useState(current?.kind === "terms" && kind === "exact" ? String(current.values[0] ?? "") : "");
  const legend = t("annotation.filters.responsesOf", { question: question.title });
  const set = (filter: ResponseFilter | null) => vm.setResponseFilter(question.name, filter);
  const numbers = question.options.map((o) => Number(o.value)).filter(Number.isFinite);
  return (
    <div className="filter-editor">
      {kinds.length > 1 && (
        <ChoiceGroup
          legend={t("annotation.filters.responseMode")}
          value={kind}
          onChange={setKind}
          options={RESPONSE_MODES.map((m) => ({ value: m, label: t(`annotation.filters.${m === "terms" ? "values" : "range"}`) }))}
        />
      )}
      {kind === "terms" && (
        <TermsChecklist
          legend={legend}
          values={optionValues(question)}
          chosen={current?.kind === "terms" ? current.values : []}
          label={optionLabel(question)}
          onChange={(values) => set(values.length ? { kind: "terms", question: question.name, values } : null)}
        />
      )}
      {kind === "range" && numbers.length > 1 && (
        <RangeFilter
          label={legend}
          min={Math.min(...numbers)}
          max={Math.max(...numbers)}
          integer
          current={current?.kind === "range" ? current : null}
          onApply={(b) => set({ kind: "range", question: question.name, ...b })}
        />
      )}
      {kind === "exact" && (
        <form
          className="filter-editor__row"
          aria-label={legend}
          onSubmit={(e) => {
            e.preventDefault();
            set(text.trim() ? { kind: "terms", question: question.name, values: [text.trim()] } : null);
          }}
        >
          <label>
            {t("annotation.filters.exactAnswer")} <input type="text" value={text} onChange={(e) => setText(e.target.value)} />
          </label>
          <button type="submit" className="button button--small">
            {t("annotation.filters.apply")}
          </button>
        </form>
      )}
    </div>
  );
});

const PROPERTY_LABEL: Record<SuggestionProperty, string> = {
  value: "annotation.filters.suggestionValue",
  score: "annotation.filters.score",
  agent: "annotation.filters.agent",
};
/** The translation key of a suggestion property's name. */
export const suggestionPropertyKey = (p: SuggestionProperty) => PROPERTY_LABEL[p];

/** Suggestion filter of one question: suggested values, score range (0 to 1) or agent. */
export const SuggestionFilterEditor = observer(function SuggestionFilterEditor({
  vm,
  question,
}: {
  vm: AnnotationViewModel;
  question: Question;
}) {
  const { t } = useTranslation();
  void vm.revision;
  const properties = suggestionFilterProperties(question.type);
  const first = vm.criteria.suggestions.find((s) => s.question === question.name)?.property;
  const [property, setProperty] = useState<SuggestionProperty>(first ?? (properties.includes("value") ? "value" : "score"));
  const current = vm.criteria.suggestions.find((s) => s.question === question.name && s.property === property);
  const chosen = current?.kind === "terms" ? current.values : [];
  const agents = vm.agentsFor(question.name);
  const terms = (prop: "value" | "agent") => (values: OptionValue[]) =>
    vm.setSuggestionFilter(question.name, prop, values.length ? { kind: "terms", question: question.name, property: prop, values } : null);
  return (
    <div className="filter-editor">
      <ChoiceGroup
        legend={t("annotation.filters.property")}
        value={property}
        onChange={setProperty}
        options={properties.map((p) => ({ value: p, label: t(PROPERTY_LABEL[p]) }))}
      />
      {property === "value" && (
        <TermsChecklist
          legend={t("annotation.filters.suggestionValue")}
          values={optionValues(question)}
          chosen={chosen}
          label={optionLabel(question)}
          onChange={terms("value")}
        />
      )}
      {property === "agent" &&
        (agents.length > 0 ? (
          <TermsChecklist legend={t("annotation.filters.agent")} values={agents} chosen={chosen} label={String} onChange={terms("agent")} />
        ) : (
          <p className="muted">{t("annotation.filters.noAgents")}</p>
        ))}
      {property === "score" && (
        <RangeFilter
          label={t("annotation.filters.score")}
          min={0}
          max={1}
          integer={false}
          current={current?.kind === "range" ? current : null}
          onApply={(b) =>
            vm.setSuggestionFilter(question.name, "score", { kind: "range", question: question.name, property: "score", ...b })
          }
        />
      )}
    </div>
  );
});

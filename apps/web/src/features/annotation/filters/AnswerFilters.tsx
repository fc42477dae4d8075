import { useState } from "react";
import { observer } from "mobx-react-lite";
import { useTranslation } from "react-i18next";
import type { OptionValue, Question, ResponseFilter, SuggestionFilter } from "@tessera/domain";
import type { AnnotationViewModel } from "../annotation-view-model";
import { optionLabel } from "../questions/LabelQuestion";

/** Question types whose answers are option values (filterable by value). */
export const VALUE_TYPES = new Set(["label_selection", "multi_label_selection", "rating"]);

function toggled(values: OptionValue[], value: OptionValue): OptionValue[] {
  return values.includes(value) ? values.filter((v) => v !== value) : [...values, value];
}

/** Checkboxes that apply a terms filter on every click (none checked removes it). */
function TermsChecklist({ legend, values, chosen, label, onChange }: {
  legend: string; values: OptionValue[]; chosen: OptionValue[]; label: (v: OptionValue) => string; onChange: (next: OptionValue[]) => void;
}) {
  return (
    <fieldset className="filter-editor">
      <legend>{legend}</legend>
      {values.map((v) => (
        <label key={String(v)}>
          <input type="checkbox" checked={chosen.includes(v)} onChange={() => onChange(toggled(chosen, v))} /> {label(v)}
        </label>
      ))}
    </fieldset>
  );
}

const optionText = (question: Question) => (v: OptionValue) => {
  const o = question.options.find((x) => x.value === v);
  return o ? optionLabel(o) : String(v);
};

/** Response filter of one question: its option values (label, multi-label, rating). */
export const ResponseFilterEditor = observer(function ResponseFilterEditor({ vm, question }: { vm: AnnotationViewModel; question: Question }) {
  const { t } = useTranslation();
  void vm.revision;
  const current = vm.criteria.responses.find((r) => r.question === question.name);
  const chosen = current?.kind === "terms" ? current.values : [];
  return (
    <TermsChecklist
      legend={t("annotation.filters.responsesOf", { question: question.title })}
      values={question.options.map((o) => o.value)}
      chosen={chosen}
      label={optionText(question)}
      onChange={(values) => vm.setResponseFilter(question.name, values.length ? { kind: "terms", question: question.name, values } : null)}
    />
  );
});

type SuggestionProperty = SuggestionFilter["property"];

/** Suggestion filter of one question: suggested values, score range (0 to 1) or agent. */
export const SuggestionFilterEditor = observer(function SuggestionFilterEditor({ vm, question }: { vm: AnnotationViewModel; question: Question }) {
  const { t } = useTranslation();
  void vm.revision;
  const hasValues = VALUE_TYPES.has(question.type);
  const [property, setProperty] = useState<SuggestionProperty>(hasValues ? "value" : "agent");
  const current = vm.criteria.suggestions.find((s) => s.question === question.name && s.property === property);
  const [ge, setGe] = useState(current?.kind === "range" && current.ge != null ? String(current.ge) : "");
  const [le, setLe] = useState(current?.kind === "range" && current.le != null ? String(current.le) : "");
  const chosen = current?.kind === "terms" ? current.values : [];
  const agents = vm.agentsFor(question.name);
  const terms = (prop: "value" | "agent") => (values: OptionValue[]) =>
    vm.setSuggestionFilter(question.name, prop, values.length ? { kind: "terms", question: question.name, property: prop, values } : null);
  const bound = (s: string) => {
    if (s.trim() === "") return null;
    const n = Number(s);
    return Number.isFinite(n) ? Math.min(1, Math.max(0, n)) : null;
  };
  return (
    <div className="filter-editor">
      <label>{t("annotation.filters.property")}
        <select value={property} onChange={(e) => setProperty(e.target.value as SuggestionProperty)}>
          {hasValues && <option value="value">{t("annotation.filters.suggestionValue")}</option>}
          <option value="score">{t("annotation.filters.score")}</option>
          <option value="agent">{t("annotation.filters.agent")}</option>
        </select>
      </label>
      {property === "value" && (
        <TermsChecklist legend={t("annotation.filters.suggestionValue")} values={question.options.map((o) => o.value)} chosen={chosen} label={optionText(question)} onChange={terms("value")} />
      )}
      {property === "agent" && (agents.length > 0
        ? <TermsChecklist legend={t("annotation.filters.agent")} values={agents} chosen={chosen} label={String} onChange={terms("agent")} />
        : <p className="muted">{t("annotation.filters.noAgents")}</p>)}
      {property === "score" && (
        <form className="filter-editor__row" onSubmit={(e) => {
          e.preventDefault();
          const g = bound(ge), l = bound(le);
          vm.setSuggestionFilter(question.name, "score", g === null && l === null ? null : { kind: "range", question: question.name, property: "score", ge: g, le: l });
        }}>
          <label>{t("annotation.filters.from")} <input type="number" min={0} max={1} step={0.01} value={ge} onChange={(e) => setGe(e.target.value)} /></label>
          <label>{t("annotation.filters.to")} <input type="number" min={0} max={1} step={0.01} value={le} onChange={(e) => setLe(e.target.value)} /></label>
          <button type="submit" className="button">{t("annotation.filters.apply")}</button>
        </form>
      )}
    </div>
  );
});

/** The text of an active response or suggestion filter's badge. */
export function describeAnswerFilter(filter: ResponseFilter | SuggestionFilter, title: string, propertyName: string | null): string {
  const values = filter.kind === "terms" ? filter.values.map(String).join(", ") : `${filter.ge ?? "…"} – ${filter.le ?? "…"}`;
  return propertyName ? `${title} · ${propertyName}: ${values}` : `${title}: ${values}`;
}

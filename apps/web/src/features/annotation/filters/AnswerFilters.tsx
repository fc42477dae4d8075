import { useState } from "react";
import { observer } from "mobx-react-lite";
import { useTranslation } from "react-i18next";
import { normalizeRange, responseFilterKinds, suggestionFilterProperties, type OptionValue, type Question, type ResponseFilter, type SuggestionFilter } from "@tessera/domain";
import type { AnnotationViewModel } from "../annotation-view-model";
import { optionLabel } from "../questions/LabelQuestion";

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

/** A From/To form applying a range (bounds clamped into [min, max], swapped when reversed; both empty removes it). */
function RangeForm({ label, min, max, step, current, onApply }: {
  label: string; min: number; max: number; step: number | "any"; current: { ge?: number | null; le?: number | null } | null;
  onApply: (bounds: { ge: number | null; le: number | null } | null) => void;
}) {
  const { t } = useTranslation();
  const [ge, setGe] = useState(current?.ge != null ? String(current.ge) : "");
  const [le, setLe] = useState(current?.le != null ? String(current.le) : "");
  const bound = (s: string) => {
    if (s.trim() === "") return null;
    const n = Number(s);
    return Number.isFinite(n) ? Math.min(max, Math.max(min, n)) : null;
  };
  return (
    <form className="filter-editor__row" aria-label={label} noValidate onSubmit={(e) => { e.preventDefault(); onApply(normalizeRange(bound(ge), bound(le))); }}>
      <label>{t("annotation.filters.from")} <input type="number" min={min} max={max} step={step} placeholder={String(min)} value={ge} onChange={(e) => setGe(e.target.value)} /></label>
      <label>{t("annotation.filters.to")} <input type="number" min={min} max={max} step={step} placeholder={String(max)} value={le} onChange={(e) => setLe(e.target.value)} /></label>
      <button type="submit" className="button">{t("annotation.filters.apply")}</button>
    </form>
  );
}

/** Whether a question gets a response filter at all (label, multi-label, rating, text). */
export const hasResponseFilter = (question: Question) => responseFilterKinds(question.type).length > 0;

/**
 * Response filter of one question: option values (label, multi-label, rating), a value range (rating, 'Filter by'),
 * or an exact answer (text).
 */
export const ResponseFilterEditor = observer(function ResponseFilterEditor({ vm, question }: { vm: AnnotationViewModel; question: Question }) {
  const { t } = useTranslation();
  void vm.revision;
  const kinds = responseFilterKinds(question.type);
  const current = vm.criteria.responses.find((r) => r.question === question.name);
  const [kind, setKind] = useState(current?.kind === "range" ? "range" : kinds[0] ?? "terms");
  const [text, setText] = useState(current?.kind === "terms" && kind === "exact" ? String(current.values[0] ?? "") : "");
  const legend = t("annotation.filters.responsesOf", { question: question.title });
  const set = (filter: ResponseFilter | null) => vm.setResponseFilter(question.name, filter);
  const numbers = question.options.map((o) => Number(o.value)).filter(Number.isFinite);
  return (
    <div className="filter-editor">
      {kinds.length > 1 && (
        <label>{t("annotation.filters.responseMode")}
          <select value={kind} onChange={(e) => setKind(e.target.value === "range" ? "range" : "terms")}>
            <option value="terms">{t("annotation.filters.values")}</option>
            <option value="range">{t("annotation.filters.range")}</option>
          </select>
        </label>
      )}
      {kind === "terms" && (
        <TermsChecklist legend={legend} values={question.options.map((o) => o.value)} chosen={current?.kind === "terms" ? current.values : []}
          label={optionText(question)} onChange={(values) => set(values.length ? { kind: "terms", question: question.name, values } : null)} />
      )}
      {kind === "range" && numbers.length > 0 && (
        <RangeForm label={legend} min={Math.min(...numbers)} max={Math.max(...numbers)} step={1} current={current?.kind === "range" ? current : null}
          onApply={(b) => set(b ? { kind: "range", question: question.name, ...b } : null)} />
      )}
      {kind === "exact" && (
        <form className="filter-editor__row" aria-label={legend} onSubmit={(e) => { e.preventDefault(); set(text.trim() ? { kind: "terms", question: question.name, values: [text.trim()] } : null); }}>
          <label>{t("annotation.filters.exactAnswer")} <input type="text" value={text} onChange={(e) => setText(e.target.value)} /></label>
          <button type="submit" className="button">{t("annotation.filters.apply")}</button>
        </form>
      )}
    </div>
  );
});

type SuggestionProperty = SuggestionFilter["property"];

/** Suggestion filter of one question: suggested values, score range (0 to 1) or agent. */
export const SuggestionFilterEditor = observer(function SuggestionFilterEditor({ vm, question }: { vm: AnnotationViewModel; question: Question }) {
  const { t } = useTranslation();
  void vm.revision;
  const properties = suggestionFilterProperties(question.type);
  const [property, setProperty] = useState<SuggestionProperty>(properties.includes("value") ? "value" : "agent");
  const current = vm.criteria.suggestions.find((s) => s.question === question.name && s.property === property);
  const chosen = current?.kind === "terms" ? current.values : [];
  const agents = vm.agentsFor(question.name);
  const terms = (prop: "value" | "agent") => (values: OptionValue[]) =>
    vm.setSuggestionFilter(question.name, prop, values.length ? { kind: "terms", question: question.name, property: prop, values } : null);
  return (
    <div className="filter-editor">
      <label>{t("annotation.filters.property")}
        <select value={property} onChange={(e) => setProperty(e.target.value as SuggestionProperty)}>
          {properties.map((p) => <option key={p} value={p}>{t(`annotation.filters.${p === "value" ? "suggestionValue" : p}`)}</option>)}
        </select>
      </label>
      {property === "value" && (
        <TermsChecklist legend={t("annotation.filters.suggestionValue")} values={question.options.map((o) => o.value)} chosen={chosen} label={optionText(question)} onChange={terms("value")} />
      )}
      {property === "agent" && (agents.length > 0
        ? <TermsChecklist legend={t("annotation.filters.agent")} values={agents} chosen={chosen} label={String} onChange={terms("agent")} />
        : <p className="muted">{t("annotation.filters.noAgents")}</p>)}
      {property === "score" && (
        <RangeForm label={t("annotation.filters.score")} min={0} max={1} step={0.01} current={current?.kind === "range" ? current : null}
          onApply={(b) => vm.setSuggestionFilter(question.name, "score", b ? { kind: "range", question: question.name, property: "score", ...b } : null)} />
      )}
    </div>
  );
});

/** The text of an active response or suggestion filter's badge. */
export function describeAnswerFilter(filter: ResponseFilter | SuggestionFilter, title: string, propertyName: string | null): string {
  const values = filter.kind === "terms" ? filter.values.map(String).join(", ") : `${filter.ge ?? "…"} – ${filter.le ?? "…"}`;
  return propertyName ? `${title} · ${propertyName}: ${values}` : `${title}: ${values}`;
}

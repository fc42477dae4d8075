import { useEffect, useState } from "react";
import { observer } from "mobx-react-lite";
import { useTranslation } from "react-i18next";
import type { DatasetSettings, MetadataFilter, MetadataProperty, RecordStatus, SortItem } from "@tessera/domain";
import type { AnnotationViewModel } from "../annotation-view-model";
import { describeAnswerFilter, ResponseFilterEditor, SuggestionFilterEditor, VALUE_TYPES } from "./AnswerFilters";

const STATUSES: RecordStatus[] = ["pending", "draft", "submitted", "discarded"];

function MetadataFilterEditor({ property, current, onApply }: { property: MetadataProperty; current: MetadataFilter | undefined; onApply: (f: MetadataFilter | null) => void }) {
  const { t } = useTranslation();
  const [ge, setGe] = useState(current?.kind === "range" ? String(current.ge ?? "") : "");
  const [le, setLe] = useState(current?.kind === "range" ? String(current.le ?? "") : "");
  if (property.isTerms) {
    const values = property.settings.values ?? [];
    const chosen = current?.kind === "terms" ? current.values : [];
    return (
      <fieldset className="filter-editor">
        <legend>{property.title}</legend>
        {values.map((v) => (
          <label key={String(v)}>
            <input type="checkbox" checked={chosen.includes(v)} onChange={() => {
              const next = chosen.includes(v) ? chosen.filter((x) => x !== v) : [...chosen, v];
              onApply(next.length ? { kind: "terms", name: property.name, values: next } : null);
            }} /> {String(v)}
          </label>
        ))}
      </fieldset>
    );
  }
  const clamp = (s: string, fallback: number | null | undefined) => {
    if (s.trim() === "") return null;
    let n = Number(s);
    if (!Number.isFinite(n)) return null;
    if (property.settings.min !== null && property.settings.min !== undefined) n = Math.max(n, property.settings.min);
    if (property.settings.max !== null && property.settings.max !== undefined) n = Math.min(n, property.settings.max);
    return n ?? fallback ?? null;
  };
  return (
    <form className="filter-editor" onSubmit={(e) => {
      e.preventDefault();
      const g = clamp(ge, property.settings.min), l = clamp(le, property.settings.max);
      onApply(g === null && l === null ? null : { kind: "range", name: property.name, ge: g, le: l });
    }}>
      <legend>{property.title}</legend>
      <label>{t("annotation.filters.from")} <input type="number" value={ge} min={property.settings.min ?? undefined} max={property.settings.max ?? undefined} onChange={(e) => setGe(e.target.value)} /></label>
      <label>{t("annotation.filters.to")} <input type="number" value={le} min={property.settings.min ?? undefined} max={property.settings.max ?? undefined} onChange={(e) => setLe(e.target.value)} /></label>
      <button type="submit" className="button">{t("annotation.filters.apply")}</button>
    </form>
  );
}

/** Search (all fields or one), status, metadata filters, sort, similarity reference, view toggle and reset. */
export const FiltersBar = observer(function FiltersBar({ vm, settings }: { vm: AnnotationViewModel; settings: DatasetSettings | null }) {
  const { t } = useTranslation();
  void vm.revision;
  const c = vm.criteria;
  const [text, setText] = useState(c.searchText);
  const [field, setField] = useState(c.searchField ?? "");
  const [openMeta, setOpenMeta] = useState<string>("");
  const [openResponse, setOpenResponse] = useState<string>("");
  const [openSuggestion, setOpenSuggestion] = useState<string>("");
  useEffect(() => { setText(c.searchText); setField(c.searchField ?? ""); }, [c.searchText, c.searchField]);
  const fields = settings?.fields ?? vm.current?.fields.map((f) => f.field) ?? [];
  const metadata = settings?.metadata ?? [];
  const questions = settings?.questions.length ? settings.questions : vm.current?.questions ?? [];
  const valueQuestions = questions.filter((q) => VALUE_TYPES.has(q.type));
  const titleOf = (name: string) => questions.find((q) => q.name === name)?.title ?? name;
  const responseQuestion = valueQuestions.find((q) => q.name === openResponse);
  const suggestionQuestion = questions.find((q) => q.name === openSuggestion);
  const sortKey = c.sort[0];
  const sortValue = sortKey ? (sortKey.key.entity === "metadata" ? `metadata:${sortKey.key.name}` : sortKey.key.entity === "record" ? `record:${sortKey.key.property}` : "") : "";

  const setSort = (value: string, order: "asc" | "desc") => {
    vm.setCriteria((cr) => {
      if (!value) { cr.sort = []; return; }
      const [kind, name = ""] = value.split(":");
      const key: SortItem["key"] = kind === "metadata" ? { entity: "metadata", name } : { entity: "record", property: name as "inserted_at" | "updated_at" };
      cr.sort = [{ key, order }];
    });
  };

  return (
    <div className="filters-bar">
      <form role="search" className="filters-bar__search" onSubmit={(e) => { e.preventDefault(); vm.setCriteria((cr) => { cr.searchText = text; cr.searchField = field || null; }); }}>
        <input type="search" placeholder={t("annotation.filters.searchPlaceholder")} aria-label={t("annotation.filters.search")} value={text} onChange={(e) => setText(e.target.value)} />
        <select aria-label={t("annotation.filters.searchField")} value={field} onChange={(e) => setField(e.target.value)}>
          <option value="">{t("annotation.filters.allFields")}</option>
          {fields.map((f) => <option key={f.name} value={f.name}>{f.title}</option>)}
        </select>
        <button type="submit" className="button">{t("annotation.filters.searchButton")}</button>
      </form>
      <label className="filters-bar__status">{t("annotation.filters.status")}
        <select value={c.status} onChange={(e) => vm.setStatus(e.target.value as RecordStatus)}>
          {STATUSES.map((s) => <option key={s} value={s}>{t(`annotation.status.${s}`)}</option>)}
        </select>
      </label>
      {metadata.length > 0 && (
        <label>{t("annotation.filters.metadata")}
          <select value={openMeta} onChange={(e) => setOpenMeta(e.target.value)}>
            <option value="">—</option>
            {metadata.map((m) => <option key={m.name} value={m.name}>{m.title}</option>)}
          </select>
        </label>
      )}
      {valueQuestions.length > 0 && (
        <label>{t("annotation.filters.responses")}
          <select value={openResponse} onChange={(e) => setOpenResponse(e.target.value)}>
            <option value="">—</option>
            {valueQuestions.map((q) => <option key={q.name} value={q.name}>{q.title}</option>)}
          </select>
        </label>
      )}
      {questions.length > 0 && (
        <label>{t("annotation.filters.suggestions")}
          <select value={openSuggestion} onChange={(e) => setOpenSuggestion(e.target.value)}>
            <option value="">—</option>
            {questions.map((q) => <option key={q.name} value={q.name}>{q.title}</option>)}
          </select>
        </label>
      )}
      <label>{t("annotation.filters.sort")}
        <select value={sortValue} onChange={(e) => setSort(e.target.value, sortKey?.order ?? "asc")}>
          <option value="">{t("annotation.filters.noSort")}</option>
          <option value="record:inserted_at">{t("annotation.filters.insertedAt")}</option>
          <option value="record:updated_at">{t("annotation.filters.updatedAt")}</option>
          {metadata.map((m) => <option key={m.name} value={`metadata:${m.name}`}>{m.title}</option>)}
        </select>
      </label>
      {sortKey && (
        <select aria-label={t("annotation.filters.order")} value={sortKey.order} onChange={(e) => setSort(sortValue, e.target.value as "asc" | "desc")}>
          <option value="asc">{t("annotation.filters.asc")}</option>
          <option value="desc">{t("annotation.filters.desc")}</option>
        </select>
      )}
      {(c.isFiltered || c.isSorted) && (
        <button type="button" className="button button--ghost" onClick={() => { setText(""); vm.setCriteria((cr) => { cr.searchText = ""; cr.searchField = null; cr.metadata = []; cr.responses = []; cr.suggestions = []; cr.sort = []; cr.similarity = null; }); }}>{t("annotation.filters.reset")}</button>
      )}
      {c.status === "pending" && (vm.records.length > 0 || vm.mode === "bulk") && (
        <div className="segmented" role="radiogroup" aria-label={t("annotation.view.label")}>
          <label><input type="radio" name="view" checked={vm.mode === "focus"} onChange={() => vm.setMode("focus")} /> {t("annotation.view.focus")}</label>
          <label><input type="radio" name="view" checked={vm.mode === "bulk"} onChange={() => vm.setMode("bulk")} /> {t("annotation.view.bulk")}</label>
        </div>
      )}
      {openMeta && metadata.find((m) => m.name === openMeta) && (
        <MetadataFilterEditor
          key={openMeta}
          property={metadata.find((m) => m.name === openMeta)!}
          current={c.metadata.find((m) => m.name === openMeta)}
          onApply={(f) => vm.setCriteria((cr) => { cr.metadata = [...cr.metadata.filter((m) => m.name !== openMeta), ...(f ? [f] : [])]; })}
        />
      )}
      {responseQuestion && <ResponseFilterEditor key={`r-${responseQuestion.name}`} vm={vm} question={responseQuestion} />}
      {suggestionQuestion && <SuggestionFilterEditor key={`s-${suggestionQuestion.name}`} vm={vm} question={suggestionQuestion} />}
      {c.metadata.length + c.responses.length + c.suggestions.length > 0 && (
        <ul className="filter-badges">
          {c.metadata.map((m) => (
            <li key={`m-${m.name}`} className="pill">{m.name}: {m.kind === "terms" ? m.values.join(", ") : `${m.ge ?? "…"} – ${m.le ?? "…"}`}
              <button type="button" aria-label={t("annotation.filters.remove", { name: m.name })} onClick={() => vm.setCriteria((cr) => { cr.metadata = cr.metadata.filter((x) => x.name !== m.name); })}>×</button>
            </li>
          ))}
          {c.responses.map((r) => {
            const text = describeAnswerFilter(r, titleOf(r.question), null);
            return (
              <li key={`r-${r.question}`} className="pill">{t("annotation.filters.responses")} · {text}
                <button type="button" aria-label={t("annotation.filters.remove", { name: text })} onClick={() => vm.setResponseFilter(r.question, null)}>×</button>
              </li>
            );
          })}
          {c.suggestions.map((s) => {
            const text = describeAnswerFilter(s, titleOf(s.question), t(`annotation.filters.${s.property === "value" ? "suggestionValue" : s.property}`));
            return (
              <li key={`s-${s.question}-${s.property}`} className="pill">{t("annotation.filters.suggestions")} · {text}
                <button type="button" aria-label={t("annotation.filters.remove", { name: text })} onClick={() => vm.setSuggestionFilter(s.question, s.property, null)}>×</button>
              </li>
            );
          })}
        </ul>
      )}
      {c.similarity && (
        <div className="similarity-reference" role="status">
          {t("annotation.similarity.similarTo", { order: t(`annotation.similarity.${c.similarity.order}`), vector: c.similarity.vectorName })}
          {vm.reference && <span className="similarity-reference__text">{String(vm.reference.fields[0]?.content ?? "").slice(0, 120)}</span>}
          <button type="button" className="button button--ghost" onClick={() => vm.findSimilar(null)}>{t("annotation.similarity.clear")}</button>
        </div>
      )}
    </div>
  );
});

import { useEffect, useState } from "react";
import { observer } from "mobx-react-lite";
import { useTranslation } from "react-i18next";
import type { DatasetSettings, RecordStatus } from "@tessera/domain";
import type { AnnotationViewModel } from "../annotation-view-model";
import { describeAnswerFilter, hasResponseFilter, ResponseFilterEditor, SuggestionFilterEditor } from "./AnswerFilters";
import { MetadataFilterEditor } from "./MetadataFilterEditor";
import { SortEditor } from "./SortEditor";

const STATUSES: RecordStatus[] = ["pending", "draft", "submitted", "discarded"];

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
  const valueQuestions = questions.filter(hasResponseFilter);
  const titleOf = (name: string) => questions.find((q) => q.name === name)?.title ?? name;
  const responseQuestion = valueQuestions.find((q) => q.name === openResponse);
  const suggestionQuestion = questions.find((q) => q.name === openSuggestion);
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
      <SortEditor vm={vm} questions={questions} metadata={metadata} />
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
        <MetadataFilterEditor key={openMeta} vm={vm} property={metadata.find((m) => m.name === openMeta)!} />
      )}
      {responseQuestion && <ResponseFilterEditor key={`r-${responseQuestion.name}`} vm={vm} question={responseQuestion} />}
      {suggestionQuestion && <SuggestionFilterEditor key={`s-${suggestionQuestion.name}`} vm={vm} question={suggestionQuestion} />}
      {c.metadata.length + c.responses.length + c.suggestions.length > 0 && (
        <ul className="filter-badges">
          {c.metadata.map((m) => (
            <li key={`m-${m.name}`} className="pill">{metadata.find((p) => p.name === m.name)?.title ?? m.name}: {m.kind === "terms" ? m.values.join(", ") : `${m.ge ?? "…"} – ${m.le ?? "…"}`}
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

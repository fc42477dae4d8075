import { useState } from "react";
import { observer } from "mobx-react-lite";
import { useTranslation } from "react-i18next";
import { normalizeRange, type MetadataFilter, type MetadataProperty } from "@tessera/domain";
import type { AnnotationViewModel } from "../annotation-view-model";

/** Parses a bound typed by the user, clamped into [min, max] when those are known; empty or invalid gives null. */
export function parseBound(text: string, min: number | null, max: number | null): number | null {
  if (text.trim() === "") return null;
  let n = Number(text);
  if (!Number.isFinite(n)) return null;
  if (min !== null) n = Math.max(n, min);
  if (max !== null) n = Math.min(n, max);
  return n;
}

/**
 * A metadata property's filter: for terms, the observed terms (from the property's metrics) as checkboxes that
 * filter on click; for integer/float, From/To inputs clamped to the observed min and max.
 */
export const MetadataFilterEditor = observer(function MetadataFilterEditor({ vm, property }: { vm: AnnotationViewModel; property: MetadataProperty }) {
  const { t } = useTranslation();
  void vm.revision;
  const current = vm.criteria.metadata.find((m) => m.name === property.name);
  const [ge, setGe] = useState(current?.kind === "range" && current.ge != null ? String(current.ge) : "");
  const [le, setLe] = useState(current?.kind === "range" && current.le != null ? String(current.le) : "");
  const apply = (f: MetadataFilter | null) => vm.setCriteria((cr) => { cr.metadata = [...cr.metadata.filter((m) => m.name !== property.name), ...(f ? [f] : [])]; });

  if (property.isTerms) {
    const values = vm.metadataTerms(property);
    const chosen = current?.kind === "terms" ? current.values : [];
    const shown = [...values, ...chosen.filter((v) => !values.includes(v))];
    return (
      <fieldset className="filter-editor">
        <legend>{property.title}</legend>
        {shown.length === 0 && <p className="muted">{t("annotation.filters.noTerms")}</p>}
        {shown.map((v) => (
          <label key={String(v)}>
            <input type="checkbox" checked={chosen.includes(v)} onChange={() => {
              const next = chosen.includes(v) ? chosen.filter((x) => x !== v) : [...chosen, v];
              apply(next.length ? { kind: "terms", name: property.name, values: next } : null);
            }} /> {String(v)}
          </label>
        ))}
      </fieldset>
    );
  }
  const { min, max } = vm.metadataRange(property);
  const step = property.type === "integer" ? 1 : "any";
  return (
    <form className="filter-editor" aria-label={property.title} noValidate onSubmit={(e) => {
      e.preventDefault();
      const bounds = normalizeRange(parseBound(ge, min, max), parseBound(le, min, max));
      apply(bounds ? { kind: "range", name: property.name, ...bounds } : null);
    }}>
      <strong>{property.title}</strong>
      {min !== null && max !== null && <span className="muted">{t("annotation.filters.observedRange", { min, max })}</span>}
      <label>{t("annotation.filters.from")} <input type="number" value={ge} step={step} min={min ?? undefined} max={max ?? undefined} placeholder={min === null ? undefined : String(min)} onChange={(e) => setGe(e.target.value)} /></label>
      <label>{t("annotation.filters.to")} <input type="number" value={le} step={step} min={min ?? undefined} max={max ?? undefined} placeholder={max === null ? undefined : String(max)} onChange={(e) => setLe(e.target.value)} /></label>
      <button type="submit" className="button">{t("annotation.filters.apply")}</button>
    </form>
  );
});

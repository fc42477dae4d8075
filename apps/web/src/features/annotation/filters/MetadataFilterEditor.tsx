import { observer } from "mobx-react-lite";
import { useTranslation } from "react-i18next";
import type { MetadataFilter, MetadataProperty } from "@tessera/domain";
import type { AnnotationViewModel } from "../annotation-view-model";
import { RangeFilter, TermsChecklist } from "./filter-controls";

/**
 * A metadata property's filter: for terms, the observed terms (from the property's metrics) as a searchable
 * checklist that filters on click; for integer/float, a range slider with From/To inputs clamped to the observed
 * min and max (no range shows while no record has a value).
 */
export const MetadataFilterEditor = observer(function MetadataFilterEditor({
  vm,
  property,
}: {
  vm: AnnotationViewModel;
  property: MetadataProperty;
}) {
  const { t } = useTranslation();
  void vm.revision;
  const current = vm.criteria.metadata.find((m) => m.name === property.name);
  const apply = (f: MetadataFilter | null) =>
    vm.setCriteria((cr) => {
      cr.metadata = [...cr.metadata.filter((m) => m.name !== property.name), ...(f ? [f] : [])];
    });

  if (property.isTerms) {
    return (
      <TermsChecklist
        legend={property.title}
        values={vm.metadataTerms(property)}
        chosen={current?.kind === "terms" ? current.values : []}
        label={String}
        searchable
        onChange={(values) => apply(values.length ? { kind: "terms", name: property.name, values } : null)}
      />
    );
  }
  const { min, max } = vm.metadataRange(property);
  if (min === null || max === null) return <p className="muted">{t("annotation.filters.noTerms")}</p>;
  return (
    <RangeFilter
      key={`${min}:${max}`}
      label={property.title}
      hint={t("annotation.filters.observedRange", { min, max })}
      min={min}
      max={max}
      integer={property.type === "integer"}
      current={current?.kind === "range" ? current : null}
      onApply={(b) => apply({ kind: "range", name: property.name, ...b })}
    />
  );
});

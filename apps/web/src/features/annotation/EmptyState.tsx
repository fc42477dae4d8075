import { observer } from "mobx-react-lite";
import { useTranslation } from "react-i18next";
import type { DatasetSettings } from "@tessera/domain";
import type { AnnotationViewModel } from "./annotation-view-model";

/** Spec section 8 empty states: empty dataset, task completed, no submitted / draft / discarded records, no match. */
export function emptyStateKey(vm: Pick<AnnotationViewModel, "criteria">, datasetEmpty: boolean): string {
  const c = vm.criteria;
  if (c.isFiltered) return "annotation.empty.noMatch";
  if (datasetEmpty) return "annotation.empty.datasetEmpty";
  switch (c.status) {
    case "pending":
      return "annotation.empty.taskCompleted";
    case "submitted":
      return "annotation.empty.noSubmitted";
    case "draft":
      return "annotation.empty.noDraft";
    default:
      return "annotation.empty.noDiscarded";
  }
}

export const EmptyState = observer(function EmptyState({
  vm,
  settings,
  datasetEmpty = false,
}: {
  vm: AnnotationViewModel;
  settings: DatasetSettings | null;
  datasetEmpty?: boolean;
}) {
  const { t } = useTranslation();
  void settings;
  const key = emptyStateKey(vm, datasetEmpty);
  return (
    <section className="empty-state annotation-empty" aria-live="polite">
      <h2>{t(key, { status: t(`annotation.status.${vm.criteria.status}`).toLowerCase() })}</h2>
      {vm.criteria.status === "pending" && !vm.criteria.isFiltered && <p>{t("annotation.empty.noPending")}</p>}
    </section>
  );
});

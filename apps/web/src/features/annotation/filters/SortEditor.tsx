import { observer } from "mobx-react-lite";
import { useTranslation } from "react-i18next";
import type { TFunction } from "i18next";
import {
  MAX_SORT_ITEMS,
  sortableKeys,
  sortKeyFromId,
  sortKeyId,
  type MetadataProperty,
  type Question,
  type SortItem,
  type SortKey,
} from "@tessera/domain";
import type { AnnotationViewModel } from "../annotation-view-model";
import { ChoiceGroup } from "./filter-controls";

type Group = "general" | "metadata" | "suggestions" | "responses";
const ORDERS = ["asc", "desc"] as const;
const GROUPS: Group[] = ["general", "metadata", "suggestions", "responses"];

function groupOf(key: SortKey): Group {
  switch (key.entity) {
    case "record":
      return "general";
    case "metadata":
      return "metadata";
    case "suggestion":
      return "suggestions";
    case "response":
      return "responses";
  }
}

/** The translated name of a sort key (record time, metadata title, suggestion score/value or response value of a question). */
export function sortKeyLabel(t: TFunction, key: SortKey, questions: Question[], metadata: MetadataProperty[]): string {
  switch (key.entity) {
    case "record":
      return t(key.property === "inserted_at" ? "annotation.filters.insertedAt" : "annotation.filters.updatedAt");
    case "metadata":
      return metadata.find((m) => m.name === key.name)?.title ?? key.name;
    case "suggestion": {
      const question = questions.find((q) => q.name === key.question)?.title ?? key.question;
      return t(key.property === "score" ? "annotation.filters.sortSuggestionScore" : "annotation.filters.sortSuggestionValue", {
        question,
      });
    }
    case "response":
      return t("annotation.filters.sortResponseValue", { question: questions.find((q) => q.name === key.question)?.title ?? key.question });
  }
}

/**
 * The sort list: each item a key (general, metadata, suggestions, responses) and an order, removable;
 * 'Add another field' appends the first unused key. The first select with 'Default order' clears the sort.
 */
export const SortEditor = observer(function SortEditor({
  vm,
  questions,
  metadata,
}: {
  vm: AnnotationViewModel;
  questions: Question[];
  metadata: MetadataProperty[];
}) {
  const { t } = useTranslation();
  void vm.revision;
  const sort = vm.criteria.sort;
  const available = sortableKeys(
    questions.map((q) => ({ name: q.name, type: q.type })),
    metadata.map((m) => m.name),
  );
  const used = new Set(sort.map((s) => sortKeyId(s.key)));
  const options = (current: string) =>
    GROUPS.map((group) => {
      const keys = available.filter((k) => groupOf(k) === group && (sortKeyId(k) === current || !used.has(sortKeyId(k))));
      return keys.length === 0 ? null : (
        <optgroup key={group} label={t(`annotation.filters.sortGroup.${group}`)}>
          {keys.map((k) => (
            <option key={sortKeyId(k)} value={sortKeyId(k)}>
              {sortKeyLabel(t, k, questions, metadata)}
            </option>
          ))}
        </optgroup>
      );
    });
  const replace = (index: number, item: SortItem | null) => {
    const next = [...sort];
    if (item) next[index] = item;
    else next.splice(index, 1);
    vm.setSort(next);
  };
  const unused = available.find((k) => !used.has(sortKeyId(k)));
  const rows = sort.length > 0 ? sort : [null];
  return (
    <div className="sort-editor" role="group" aria-label={t("annotation.filters.sort")}>
      {rows.map((item, index) => {
        const id = item ? sortKeyId(item.key) : "";
        return (
          <div className="sort-editor__item" key={index}>
            <label>
              {t(index === 0 ? "annotation.filters.sort" : "annotation.filters.thenBy")}
              <select
                value={id}
                onChange={(e) => {
                  const key = sortKeyFromId(e.target.value, available);
                  replace(index, key ? { key, order: item?.order ?? "asc" } : null);
                }}
              >
                {index === 0 && <option value="">{t("annotation.filters.noSort")}</option>}
                {options(id)}
              </select>
            </label>
            {item && (
              <ChoiceGroup
                legend={t("annotation.filters.orderOf", { name: sortKeyLabel(t, item.key, questions, metadata) })}
                value={item.order}
                onChange={(order) => replace(index, { key: item.key, order })}
                options={ORDERS.map((o) => ({ value: o, label: t(`annotation.filters.${o}`) }))}
              />
            )}
            {item && (
              <button
                type="button"
                className="icon-button"
                aria-label={t("annotation.filters.removeSort", { name: sortKeyLabel(t, item.key, questions, metadata) })}
                onClick={() => replace(index, null)}
              >
                ×
              </button>
            )}
          </div>
        );
      })}
      {sort.length > 0 && sort.length < MAX_SORT_ITEMS && unused && (
        <button type="button" className="link-button" onClick={() => vm.setSort([...sort, { key: unused, order: "asc" }])}>
          {t("annotation.filters.addSort")}
        </button>
      )}
    </div>
  );
});

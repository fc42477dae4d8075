import { useEffect, useId, useState } from "react";
import { observer } from "mobx-react-lite";
import { useTranslation } from "react-i18next";
import * as Popover from "@radix-ui/react-popover";
import type { DatasetSettings, RecordStatus } from "@tessera/domain";
import type { AnnotationViewModel } from "../annotation-view-model";
import { keepKeysInside, POPOVER_ALIGN } from "./filter-controls";
import { FiltersPanel } from "./FiltersPanel";
import { FiltersPanelViewModel } from "./filters-panel-view-model";
import { FilterIcon, SortIcon } from "./icons";
import { SortEditor } from "./SortEditor";

const STATUSES: RecordStatus[] = ["pending", "draft", "submitted", "discarded"];

/** The count of a tool button ('Filters 2', read 'Filters 2 active'); the spaces keep the accessible name readable. */
function ActiveCount({ count }: { count: number }) {
  const { t } = useTranslation();
  if (count === 0) return null;
  return (
    <>
      {" "}
      <span className="count-badge">{count}</span>{" "}
      <span className="visually-hidden">{t("annotation.filters.activeSuffix", { count })}</span>
    </>
  );
}

/**
 * The bar above the records: search (all fields or one), status, the Filters button (its icon fills and a count
 * shows when any filter is on) that opens the filters panel, Sort (a popover with the list of sort keys), Reset,
 * and the focus / bulk view toggle; then the panel and the similarity reference.
 */
export const FiltersBar = observer(function FiltersBar({ vm, settings }: { vm: AnnotationViewModel; settings: DatasetSettings | null }) {
  const { t } = useTranslation();
  void vm.revision;
  const c = vm.criteria;
  const panelId = useId();
  const [panel] = useState(() => new FiltersPanelViewModel(vm));
  const [text, setText] = useState(c.searchText);
  const [field, setField] = useState(c.searchField ?? "");
  useEffect(() => {
    setText(c.searchText);
    setField(c.searchField ?? "");
  }, [c.searchText, c.searchField]);
  // only what the API gave this user: annotators get the metadata properties visible to them
  useEffect(() => {
    panel.setSchema(settings?.metadata ?? [], settings?.questions ?? []);
  }, [panel, settings]);
  const fields = settings?.fields ?? vm.current?.fields.map((f) => f.field) ?? [];
  const count = panel.activeCount;
  const sorted = c.sort.length;
  return (
    <div className="filters-bar" onKeyDown={keepKeysInside}>
      <div className="filters-bar__row">
        <form
          role="search"
          className="filters-bar__search"
          onSubmit={(e) => {
            e.preventDefault();
            vm.setCriteria((cr) => {
              cr.searchText = text;
              cr.searchField = field || null;
            });
          }}
        >
          <input
            type="search"
            placeholder={t("annotation.filters.searchPlaceholder")}
            aria-label={t("annotation.filters.search")}
            value={text}
            onChange={(e) => setText(e.target.value)}
          />
          <select aria-label={t("annotation.filters.searchField")} value={field} onChange={(e) => setField(e.target.value)}>
            <option value="">{t("annotation.filters.allFields")}</option>
            {fields.map((f) => (
              <option key={f.name} value={f.name}>
                {f.title}
              </option>
            ))}
          </select>
          <button type="submit" className="button button--small">
            {t("annotation.filters.searchButton")}
          </button>
        </form>
        <div className="filters-bar__tools">
          <select
            className="filters-bar__status"
            aria-label={t("annotation.filters.status")}
            value={c.status}
            onChange={(e) => vm.setStatus(e.target.value as RecordStatus)}
          >
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {t(`annotation.status.${s}`)}
              </option>
            ))}
          </select>
          <button
            type="button"
            className={`tool-button${count ? " tool-button--active" : ""}`}
            aria-expanded={panel.expanded}
            aria-controls={panel.expanded ? panelId : undefined}
            onClick={() => panel.toggleExpanded()}
          >
            <FilterIcon active={count > 0} />
            {t("annotation.filters.filters")}
            <ActiveCount count={count} />
          </button>
          <Popover.Root>
            <Popover.Trigger className={`tool-button${sorted ? " tool-button--active" : ""}`}>
              <SortIcon />
              {t("annotation.filters.sort")}
              <ActiveCount count={sorted} />
            </Popover.Trigger>
            <Popover.Portal>
              <Popover.Content
                className="filter-popover filter-popover--sort"
                align={POPOVER_ALIGN}
                sideOffset={6}
                collisionPadding={8}
                onKeyDown={keepKeysInside}
                aria-label={t("annotation.filters.sort")}
              >
                <SortEditor vm={vm} questions={panel.questions} metadata={panel.metadata} />
              </Popover.Content>
            </Popover.Portal>
          </Popover.Root>
          {panel.canReset && (
            <button
              type="button"
              className="link-button"
              onClick={() => {
                setText("");
                panel.reset();
              }}
            >
              {t("annotation.filters.reset")}
            </button>
          )}
          <span className="filters-bar__spacer" />
          {c.status === "pending" && (vm.records.length > 0 || vm.mode === "bulk") && (
            <div className="segmented" role="radiogroup" aria-label={t("annotation.view.label")}>
              <label>
                <input type="radio" name="view" checked={vm.mode === "focus"} onChange={() => vm.setMode("focus")} />{" "}
                {t("annotation.view.focus")}
              </label>
              <label>
                <input type="radio" name="view" checked={vm.mode === "bulk"} onChange={() => vm.setMode("bulk")} />{" "}
                {t("annotation.view.bulk")}
              </label>
            </div>
          )}
        </div>
      </div>
      {panel.expanded && <FiltersPanel panel={panel} vm={vm} id={panelId} />}
      {c.similarity && (
        <div className="similarity-reference" role="status">
          {t("annotation.similarity.similarTo", {
            order: t(`annotation.similarity.${c.similarity.order}`),
            vector: c.similarity.vectorName,
          })}
          {vm.reference && (
            <span className="similarity-reference__text">{String(vm.reference.fields[0]?.content ?? "").slice(0, 120)}</span>
          )}
          <button type="button" className="button button--ghost" onClick={() => vm.findSimilar(null)}>
            {t("annotation.similarity.clear")}
          </button>
        </div>
      )}
    </div>
  );
});

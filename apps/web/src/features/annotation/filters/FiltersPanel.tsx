import { useEffect, useRef } from "react";
import { observer } from "mobx-react-lite";
import { useTranslation } from "react-i18next";
import * as Popover from "@radix-ui/react-popover";
import type { AnnotationViewModel } from "../annotation-view-model";
import { ResponseFilterEditor, SuggestionFilterEditor, suggestionPropertyKey } from "./AnswerFilters";
import { keepKeysInside, POPOVER_ALIGN } from "./filter-controls";
import { MetadataFilterEditor } from "./MetadataFilterEditor";
import type { ActiveFilter, FilterCategory, FiltersPanelViewModel } from "./filters-panel-view-model";
import { ChevronIcon } from "./icons";

const CONTROLS = "input:not([type=hidden]), button, select, textarea, [role=slider], [tabindex='0']";

/**
 * Moves focus into a category popover: to the editor's first control when it shows one (not the back button),
 * else to the list's first control. Returns whether a control took the focus.
 */
export function focusFirst(root: HTMLElement | null): boolean {
  if (!root) return false;
  // the first control that takes the focus (a slider's hidden form input, say, does not)
  const takes = (el: HTMLElement) => {
    el.focus();
    return root.ownerDocument.activeElement === el;
  };
  const inEditor = Array.from(root.querySelectorAll<HTMLElement>(`.filter-popover__editor :is(${CONTROLS})`));
  return inEditor.some(takes) || Array.from(root.querySelectorAll<HTMLElement>(CONTROLS)).some(takes);
}

/** `focusFirst` on the next frame: a slider's thumbs only show once it has measured them. */
const focusFirstSoon = (root: HTMLElement | null) => {
  requestAnimationFrame(() => {
    if (!focusFirst(root)) root?.focus();
  });
};

/** A category's popover content: the list of its properties or questions (searchable when long), or one's editor. */
const CategoryContent = observer(function CategoryContent({
  panel,
  vm,
  category,
}: {
  panel: FiltersPanelViewModel;
  vm: AnnotationViewModel;
  category: FilterCategory;
}) {
  const { t } = useTranslation();
  const ref = useRef<HTMLDivElement>(null);
  const editing = panel.editing;
  const editingKey = editing ? `${"name" in editing ? editing.name : editing.question}` : "";
  const first = useRef(true);
  useEffect(() => {
    // the popover focuses its first control when it opens; later steps (chosen, back) move focus themselves
    if (first.current) {
      first.current = false;
      return;
    }
    focusFirstSoon(ref.current);
  }, [editingKey]);
  const many = panel.subjects(category).length > 1;
  if (editing) {
    const title =
      editing.category === "metadata"
        ? panel.metadata.find((m) => m.name === editing.name)?.title
        : panel.question(editing.question)?.title;
    const property = editing.category === "metadata" ? panel.metadata.find((m) => m.name === editing.name) : undefined;
    const question = editing.category !== "metadata" ? panel.question(editing.question) : undefined;
    return (
      <div ref={ref} className="filter-popover__body">
        <div className="filter-popover__header">
          {many && (
            <button type="button" className="icon-button" aria-label={t("annotation.filters.back")} onClick={() => panel.back()}>
              ←
            </button>
          )}
          <h3 className="filter-popover__title">{title}</h3>
        </div>
        <div className="filter-popover__editor">
          {property && <MetadataFilterEditor vm={vm} property={property} />}
          {question && editing.category === "responses" && <ResponseFilterEditor vm={vm} question={question} />}
          {question && editing.category === "suggestions" && <SuggestionFilterEditor vm={vm} question={question} />}
        </div>
      </div>
    );
  }
  return (
    <div ref={ref} className="filter-popover__body">
      {panel.hasSubjectSearch && (
        <input
          type="search"
          className="terms-list__search"
          value={panel.subjectQuery}
          onChange={(e) => panel.setSubjectQuery(e.target.value)}
          aria-label={t("annotation.filters.searchIn", { category: t(`annotation.filters.${category}`) })}
          placeholder={t("annotation.filters.searchValues")}
        />
      )}
      <ul className="subject-list">
        {panel.shownSubjects.map((s) => (
          <li key={s.title + ("name" in s.subject ? s.subject.name : s.subject.question)}>
            <button type="button" className="subject-list__item" onClick={() => panel.choose(s.subject)}>
              <span>{s.title}</span>
              {s.active && (
                <span className="subject-list__active" aria-label={t("annotation.filters.active")} role="img">
                  ●
                </span>
              )}
            </button>
          </li>
        ))}
      </ul>
      {panel.shownSubjects.length === 0 && <p className="muted">{t("annotation.filters.noMatches")}</p>}
    </div>
  );
});

/** The text of an active filter's badge: `Title: a, b` or `Title: 1 – 5`, with the suggestion property when there is one. */
export function badgeText(t: (key: string) => string, f: ActiveFilter): string {
  const values = f.values ? f.values.join(", ") : `${f.range?.ge ?? "…"} – ${f.range?.le ?? "…"}`;
  return f.property ? `${f.title} · ${t(suggestionPropertyKey(f.property))}: ${values}` : `${f.title}: ${values}`;
}

/**
 * Clears a badge's filter; the focus goes to the next badge's ×, else the previous one's, else the first category
 * button (the removed badge's button disappears with it).
 */
function clearKeepingFocus(button: HTMLElement, filter: ActiveFilter): void {
  const item = button.closest("li");
  const panel = button.closest(".filters-panel");
  const next = (item?.nextElementSibling ?? item?.previousElementSibling)?.querySelector<HTMLElement>(".filter-badge__clear");
  filter.clear();
  (next ?? panel?.querySelector<HTMLElement>(".filter-trigger"))?.focus();
}

/**
 * The filters panel under the bar: one popover per category (Metadata, Responses, Suggestions) and the active
 * filters as badges (click to edit, × to clear).
 */
export const FiltersPanel = observer(function FiltersPanel({
  panel,
  vm,
  id,
}: {
  panel: FiltersPanelViewModel;
  vm: AnnotationViewModel;
  id: string;
}) {
  const { t } = useTranslation();
  const filters = panel.activeFilters;
  return (
    <div id={id} className="filters-panel" role="group" aria-label={t("annotation.filters.filters")}>
      <div className="filters-panel__categories">
        {panel.categories.map((category) => (
          <Popover.Root
            key={category}
            open={panel.openCategory === category}
            onOpenChange={(open) => (open ? panel.openPopover(category) : panel.closePopover())}
          >
            <Popover.Trigger className="filter-trigger">
              {t(`annotation.filters.${category}`)} <ChevronIcon />
            </Popover.Trigger>
            <Popover.Portal>
              <Popover.Content
                className="filter-popover"
                align={POPOVER_ALIGN}
                sideOffset={6}
                collisionPadding={8}
                onKeyDown={keepKeysInside}
                onOpenAutoFocus={(e) => {
                  e.preventDefault();
                  focusFirstSoon(e.currentTarget as HTMLElement);
                }}
                aria-label={t(`annotation.filters.${category}`)}
              >
                <CategoryContent panel={panel} vm={vm} category={category} />
              </Popover.Content>
            </Popover.Portal>
          </Popover.Root>
        ))}
        {panel.categories.length === 0 && <span className="muted">{t("annotation.filters.nothingToFilter")}</span>}
      </div>
      {filters.length > 0 && (
        <ul className="filter-badges" aria-label={t("annotation.filters.active")}>
          {filters.map((f) => {
            const text = badgeText(t, f);
            return (
              <li key={f.key} className="filter-badge" data-category={f.subject.category}>
                <button
                  type="button"
                  className="filter-badge__label"
                  onClick={() => panel.editFilter(f)}
                  title={t("annotation.filters.edit", { name: text })}
                >
                  <span className="filter-badge__category">{t(`annotation.filters.${f.subject.category}`)}</span> {text}
                </button>
                <button
                  type="button"
                  className="filter-badge__clear"
                  aria-label={t("annotation.filters.remove", { name: text })}
                  onClick={(e) => clearKeepingFocus(e.currentTarget, f)}
                >
                  ×
                </button>
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
});

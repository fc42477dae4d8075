import { useEffect, useRef, useState, type ReactNode } from "react";
import { observer } from "mobx-react-lite";
import { useTranslation } from "react-i18next";
import type { ResponseStatus } from "@tessera/domain";
import { PAGE_SIZES, type AnnotationViewModel } from "../annotation-view-model";
import { RecordFields } from "../fields/RecordFields";
import { QuestionsForm } from "../questions/QuestionsForm";
import { EmptyState } from "../EmptyState";
import { RecordCard } from "../RecordCard";
import { keepKeysInside } from "../filters/filter-controls";
import { BulkCardsViewModel } from "./bulk-cards-view-model";

/**
 * A card's fields, clamped to a fixed height while the list is collapsed: a fade over the cut and 'Show more' /
 * 'Show less' when they are taller (measured with a ResizeObserver, so late images and fonts count).
 */
const ClampedFields = observer(function ClampedFields({
  cards,
  id,
  children,
}: {
  cards: BulkCardsViewModel;
  id: string;
  children: ReactNode;
}) {
  const { t } = useTranslation();
  const ref = useRef<HTMLDivElement>(null);
  const clamped = cards.isClamped(id);
  useEffect(() => {
    const el = ref.current;
    if (!el || !clamped) return;
    const measure = () => cards.setOverflowing(id, el.scrollHeight > el.clientHeight + 1);
    measure();
    if (typeof ResizeObserver === "undefined") return;
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    for (const child of Array.from(el.children)) observer.observe(child);
    return () => observer.disconnect();
  }, [cards, id, clamped]);
  const contentId = `clamp-${id}`;
  return (
    <>
      <div
        ref={ref}
        id={contentId}
        className={`record-clamp${clamped ? " record-clamp--clamped" : ""}${cards.fades(id) ? " record-clamp--fade" : ""}`}
      >
        {children}
      </div>
      {cards.offersToggle(id) && (
        <button
          type="button"
          className="link-button record-clamp__toggle"
          aria-expanded={!clamped}
          aria-controls={contentId}
          onKeyDown={keepKeysInside}
          onClick={() => cards.toggleCard(id)}
        >
          {clamped ? t("annotation.bulk.showMore") : t("annotation.bulk.showLess")}
        </button>
      )}
    </>
  );
});

/** A page of records with selection, one answer form for all selected, and bulk actions in chunks of 10. */
export const BulkView = observer(function BulkView({ vm }: { vm: AnnotationViewModel }) {
  const { t } = useTranslation();
  const listRef = useRef<HTMLDivElement>(null);
  const [cards] = useState(() => new BulkCardsViewModel());
  const records = vm.records;
  const reference = records[0];
  vm.form.track();
  useEffect(() => {
    listRef.current?.scrollTo?.({ top: 0 });
    cards.forgetCards();
  }, [vm.criteria.page.page, cards]);
  if (!reference) return <EmptyState vm={vm} settings={null} />;
  const page = vm.criteria.page;
  const act = (status: ResponseStatus) => {
    void vm.bulkAct(status);
  };
  const lastPage = Math.max(1, Math.ceil(vm.total / page.size));
  const currentPage = Math.floor((page.page - 1) / page.size) + 1;
  return (
    <div className="bulk-view">
      <div className="bulk-toolbar" onKeyDown={keepKeysInside}>
        <label className="bulk-toolbar__select">
          <input
            type="checkbox"
            checked={vm.pageSelected || vm.allMatched}
            onChange={() => vm.togglePage()}
            aria-label={t("annotation.bulk.selectAll")}
          />
          {t("annotation.bulk.selected", { count: vm.selectedCount })}
        </label>
        {vm.canSelectAllMatched && (
          <button type="button" className="button button--ghost" onClick={() => vm.selectAllMatched()}>
            {t("annotation.bulk.selectAllMatched", { total: vm.total })}
          </button>
        )}
        {vm.allMatched && (
          <span>
            {t("annotation.bulk.allSelected", { total: vm.total })}{" "}
            <button type="button" className="button button--ghost" onClick={() => vm.clearSelection()}>
              {t("annotation.bulk.cancel")}
            </button>
          </span>
        )}
        <span className="record-card__spacer" />
        <button type="button" className="button button--ghost" onClick={() => cards.toggleCollapsed()}>
          {cards.collapsed ? t("annotation.bulk.expand") : t("annotation.bulk.collapse")}
        </button>
        <label>
          {t("annotation.bulk.pageSize")}
          <select value={page.size} onChange={(e) => vm.setPageSize(Number(e.target.value))}>
            {PAGE_SIZES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <nav className="record-nav" aria-label={t("annotation.nav.label")}>
          <button type="button" className="button" disabled={!vm.hasPrevious} onClick={() => vm.previous()}>
            {t("annotation.nav.previous")}
          </button>
          <span>
            {t(vm.totalIsLowerBound ? "annotation.bulk.pageAtLeast" : "annotation.bulk.page", { page: currentPage, pages: lastPage })}
          </span>
          <button type="button" className="button" disabled={!vm.hasNext} onClick={() => vm.next()}>
            {t("annotation.nav.next")}
          </button>
        </nav>
      </div>
      <div className="focus-view__body">
        <div className={`bulk-list${cards.collapsed ? " bulk-list--collapsed" : ""}`} ref={listRef}>
          {records.map((r) => (
            <RecordCard
              key={r.id}
              vm={vm}
              record={r}
              settings={null}
              header={
                <input
                  type="checkbox"
                  checked={vm.isSelected(r)}
                  onChange={() => vm.toggleSelected(r)}
                  aria-label={t("annotation.bulk.selectRecord", { id: r.externalId ?? r.id })}
                />
              }
            >
              <ClampedFields cards={cards} id={r.id}>
                <RecordFields record={r} form={vm.form} search={vm.criteria.searchText} />
              </ClampedFields>
            </RecordCard>
          ))}
        </div>
        <section className="form-panel" aria-label={t("annotation.form.label")}>
          <QuestionsForm record={reference} form={vm.form} />
          {vm.bulkProgress !== null && (
            <progress className="bulk-progress" max={100} value={vm.bulkProgress} aria-label={t("annotation.bulk.progress")} />
          )}
          {vm.notice && (
            <p role={vm.notice.type === "danger" ? "alert" : "status"} className={vm.notice.type === "danger" ? "form-error" : "notice"}>
              {t(vm.notice.key, vm.notice.params ?? {})}{" "}
              <button
                type="button"
                className="button button--ghost"
                aria-label={t("annotation.guard.close")}
                onClick={() => vm.dismissNotice()}
              >
                ×
              </button>
            </p>
          )}
          <footer className="form-footer">
            <span title={vm.canBulkAct ? undefined : t("annotation.bulk.noneSelected")} className="form-footer__group">
              <button type="button" className="button" disabled={!vm.canBulkAct} onClick={() => act("discarded")}>
                <kbd>⌫</kbd> {t("annotation.form.discard")}
              </button>
              <button type="button" className="button" disabled={!vm.canBulkAct} onClick={() => act("draft")}>
                <kbd>⌘/ctrl S</kbd> {t("annotation.form.draft")}
              </button>
              <button
                type="button"
                className="button button--primary"
                disabled={!vm.canBulkAct || !reference.questionsAreCompletedCorrectly}
                onClick={() => act("submitted")}
              >
                <kbd>↵</kbd> {t("annotation.form.submit")}
              </button>
            </span>
          </footer>
        </section>
      </div>
      {vm.confirmBulk && (
        <div className="modal-backdrop">
          <div className="modal" role="dialog" aria-modal="true" aria-labelledby="bulk-confirm-title">
            <h2 id="bulk-confirm-title">{t("annotation.bulk.confirmTitle")}</h2>
            <p>{t("annotation.bulk.confirmText", { total: vm.total })}</p>
            <button type="button" className="button" onClick={() => vm.cancelBulk()}>
              {t("annotation.bulk.cancel")}
            </button>
            <button
              type="button"
              className="button button--primary"
              onClick={() => {
                const s = vm.confirmBulk;
                if (s) void vm.bulkAct(s, true);
              }}
            >
              {t("annotation.bulk.continue")}
            </button>
          </div>
        </div>
      )}
    </div>
  );
});

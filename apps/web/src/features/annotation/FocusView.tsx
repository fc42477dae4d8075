import { useEffect, useRef } from "react";
import { observer } from "mobx-react-lite";
import { useTranslation } from "react-i18next";
import type { DatasetSettings } from "@tessera/domain";
import type { AnnotationViewModel } from "./annotation-view-model";
import { RecordFields } from "./fields/RecordFields";
import { QuestionsForm, focusNewRecord } from "./questions/QuestionsForm";
import { EmptyState } from "./EmptyState";
import { RecordCard } from "./RecordCard";

/** One record, its questions, previous / next and the form actions. */
export const FocusView = observer(function FocusView({ vm, settings }: { vm: AnnotationViewModel; settings: DatasetSettings | null }) {
  const { t } = useTranslation();
  const formRef = useRef<HTMLDivElement>(null);
  const navRef = useRef<HTMLElement>(null);
  const record = vm.current;
  vm.form.track();

  // a new record takes the keyboard: focus its first question (unless the user is typing somewhere)
  useEffect(() => {
    const active = document.activeElement;
    if (active && active !== document.body && !formRef.current?.contains(active) && !active.closest?.(".record-nav")) return;
    focusNewRecord(formRef.current, navRef.current);
  }, [record?.id]);

  if (!record)
    return vm.fetching ? (
      <p aria-busy="true" className="annotation__loading">
        {t("annotation.loading")}
      </p>
    ) : (
      <EmptyState vm={vm} settings={settings} />
    );
  return (
    <div className="focus-view">
      <nav ref={navRef} className="record-nav" aria-label={t("annotation.nav.label")}>
        <button type="button" className="button" disabled={!vm.hasPrevious} onClick={() => vm.previous()}>
          {t("annotation.nav.previous")}
        </button>
        <span className="record-nav__position">{t("annotation.nav.position", { page: vm.criteria.page.page, total: vm.total })}</span>
        <button type="button" className="button" disabled={!vm.hasNext} onClick={() => vm.next()}>
          {t("annotation.nav.next")}
        </button>
      </nav>
      <div className="focus-view__body">
        <RecordCard vm={vm} record={record} settings={settings}>
          <RecordFields record={record} form={vm.form} search={vm.criteria.searchText} />
        </RecordCard>
        <section
          className={`form-panel form-panel--${record.status}${vm.saveState === "saving" ? " form-panel--saving" : ""}`}
          aria-label={t("annotation.form.label")}
          data-form-kept={vm.formKept}
          ref={formRef}
        >
          {vm.restoredWork && (
            <p className="restored-work" role="status" data-restored-record={record.id}>
              {t("offline.restored")}
            </p>
          )}
          <QuestionsForm
            record={record}
            form={vm.form}
            onAutoSubmit={() => {
              void vm.act("submitted");
            }}
          />
          <FormFooter vm={vm} />
        </section>
      </div>
    </div>
  );
});

export const FormFooter = observer(function FormFooter({ vm }: { vm: AnnotationViewModel }) {
  const { t } = useTranslation();
  const record = vm.current;
  vm.form.track();
  if (!record) return null;
  return (
    <footer className="form-footer">
      <span className="form-footer__state" role="status" aria-live="polite">
        {vm.isQueued(record)
          ? t("offline.queued")
          : vm.saveState === "saving"
            ? t("annotation.form.saving")
            : vm.saveState === "saved"
              ? t("annotation.form.saved")
              : !record.isModified
                ? ""
                : vm.formKept === "failed"
                  ? t("offline.formNotKept")
                  : // also while the latest change is being written (a few ms): a live region that flickered at
                    // every keystroke would be read out again and again; data-form-kept has the exact state
                    t("offline.formKept")}
      </span>
      <button type="button" className="button button--ghost" onClick={() => vm.reset()} disabled={!record.isModified}>
        {t("annotation.form.reset")}
      </button>
      <button
        type="button"
        className="button button--ghost"
        onClick={() => {
          void vm.clear();
        }}
        disabled={vm.busy}
      >
        {t("annotation.form.clear")}
      </button>
      {!record.isDiscarded && (
        <button
          type="button"
          className="button"
          onClick={() => {
            void vm.act("discarded");
          }}
          disabled={!vm.canDiscard}
        >
          <kbd>⌫</kbd> {t("annotation.form.discard")}
        </button>
      )}
      <button
        type="button"
        className="button"
        onClick={() => {
          void vm.act("draft");
        }}
        disabled={!vm.canSaveDraft}
      >
        <kbd>⌘/ctrl S</kbd> {t("annotation.form.draft")}
      </button>
      <span title={vm.canSubmit || !record ? undefined : t("annotation.form.completeRequired")}>
        <button
          type="button"
          className="button button--primary"
          onClick={() => {
            void vm.act("submitted");
          }}
          disabled={!vm.canSubmit}
        >
          <kbd>↵</kbd> {t("annotation.form.submit")}
        </button>
      </span>
    </footer>
  );
});

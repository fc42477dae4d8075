import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { observer } from "mobx-react-lite";
import { useTranslation } from "react-i18next";
import { useLocation, useParams } from "react-router";
import {
  BulkAnnotateUseCase,
  ClearRecordUseCase,
  GetAgentsUseCase,
  GetDatasetMetricsUseCase,
  GetDatasetProgressUseCase,
  GetMetadataMetricsUseCase,
  LoadDatasetWithSettingsUseCase,
  LoadRecordsUseCase,
  ReleaseReservationsUseCase,
  RenewReservationsUseCase,
  type DatasetSettings,
  type Progress,
} from "@tessera/domain";
import { useResolve } from "../../app/container-context";
import { useToasts } from "../../app/app-services";
import { AnnotationLayout } from "../../layouts";
import { parseQuery, useQueryParams } from "../../shared/query-params";
import { useSession } from "../session/session-context";
import { useOfflineAnswers } from "../offline/offline-context";
import { OutboxChoices } from "../offline/OutboxChoices";
import { AnnotationViewModel } from "./annotation-view-model";
import { criteriaFromQuery, criteriaSearch, criteriaToQuery, viewOfSearch } from "./criteria-url";
import { FocusView } from "./FocusView";
import { BulkView } from "./bulk/BulkView";
import { FiltersBar } from "./filters/FiltersBar";
import { ShortcutsHelp } from "./ShortcutsHelp";
import { SidePanels } from "./SidePanels";
import { DownloadButton } from "../transfer/download/DownloadDialog";
import { ReviewLinks } from "../review/ReviewLinks";
import { QueueReservationsViewModel } from "./queue-reservations-view-model";
import { ReservationsNotice } from "./ReservationsNotice";
import "./annotation.css";

const isEditable = (el: EventTarget | null) =>
  el instanceof HTMLElement &&
  (el.tagName === "TEXTAREA" ||
    el.tagName === "SELECT" ||
    (el.tagName === "INPUT" && !["checkbox", "radio", "button"].includes((el as HTMLInputElement).type)) ||
    el.isContentEditable);

/** The annotation screen `/dataset/:id/annotation-mode`: focus and bulk views over the records queue. */
export const AnnotationPage = observer(function AnnotationPage() {
  const { t, i18n } = useTranslation();
  const toasts = useToasts();
  const { id = "" } = useParams();
  const location = useLocation();
  const [, setQuery] = useQueryParams();
  const session = useSession();
  const offline = useOfflineAnswers();
  const useCases = {
    loadRecords: useResolve(LoadRecordsUseCase),
    answers: offline,
    clear: useResolve(ClearRecordUseCase),
    bulk: useResolve(BulkAnnotateUseCase),
    metrics: useResolve(GetDatasetMetricsUseCase),
    agents: useResolve(GetAgentsUseCase),
    metadataMetrics: useResolve(GetMetadataMetricsUseCase),
  };
  const loadSettings = useResolve(LoadDatasetWithSettingsUseCase);
  const getProgress = useResolve(GetDatasetProgressUseCase);
  const renewReservations = useResolve(RenewReservationsUseCase);
  const releaseReservations = useResolve(ReleaseReservationsUseCase);
  const [settings, setSettings] = useState<DatasetSettings | null>(null);
  const [progress, setProgress] = useState<Progress | null>(null);
  const [help, setHelp] = useState(false);
  const lastWritten = useRef<string | null>(null);

  const vm = useMemo(
    () => {
      const model: AnnotationViewModel = new AnnotationViewModel(id, useCases, criteriaFromQuery(id, parseQuery(location.search)), {
        // a response sent in the background failed: a toast with the way back to the record (its answers are kept)
        onSaveFailed: (failure) =>
          toasts.notify({
            message: i18n.t("annotation.saveFailed.message", { page: failure.record.page }),
            type: "danger",
            permanent: true,
            buttonText: i18n.t("annotation.saveFailed.goTo", { page: failure.record.page }),
            onClick: () => model.goToFailed(failure),
          }),
      });
      return model;
    },
    // one view model per dataset
    [id],
  );

  useEffect(() => {
    void vm.init();
    return () => vm.dispose();
  }, [vm]);

  // reservations of the team's queue: kept while the annotator works, given back when they leave (issue 29)
  const reservations = useMemo(
    () => new QueueReservationsViewModel(vm, { renew: renewReservations, release: releaseReservations }),
    [vm, renewReservations, releaseReservations],
  );
  useEffect(() => {
    reservations.start();
    const active = () => reservations.activity();
    const leave = () => reservations.leave();
    const back = () => reservations.start();
    window.addEventListener("keydown", active);
    window.addEventListener("pointerdown", active);
    window.addEventListener("pagehide", leave);
    window.addEventListener("pageshow", back);
    return () => {
      window.removeEventListener("keydown", active);
      window.removeEventListener("pointerdown", active);
      window.removeEventListener("pagehide", leave);
      window.removeEventListener("pageshow", back);
      reservations.leave();
    };
  }, [reservations]);
  const answered = vm.responseEvents;
  useEffect(() => {
    if (answered > 0) reservations.activity();
  }, [reservations, answered]);
  useEffect(() => {
    let live = true;
    loadSettings
      .execute(id, { isAdminOrOwner: session.user?.isAdminOrOwner ?? false })
      .then((s) => {
        if (!live) return;
        setSettings(s);
        // observed terms and min/max of the properties this user sees, for the metadata filters
        void vm.loadMetadataMetrics(s.metadata);
      })
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [id, vm, loadSettings, session.user]);
  // team progress, refreshed after every response event
  const responded = vm.responseEvents;
  useEffect(() => {
    getProgress
      .execute(id)
      .then(setProgress)
      .catch(() => undefined);
  }, [id, getProgress, responded]);

  // criteria -> URL; the URL and the criteria are compared as views (see viewOfSearch), never as strings, so that a
  // link written in another order or encoding (a shared link) is not taken for a new view and reset to page 1
  void vm.revision;
  const query = criteriaToQuery(vm.criteria);
  const search = criteriaSearch(vm.criteria);
  const urlView = viewOfSearch(id, location.search);
  useEffect(() => {
    if (search === urlView) return;
    lastWritten.current = search;
    setQuery(query);
  }, [search]);
  // URL -> criteria (back / forward)
  useEffect(() => {
    if (urlView === search) {
      lastWritten.current = null; // our own write arrived: a later Back / Forward to that view is read again
      return;
    }
    if (urlView === lastWritten.current) return;
    const next = criteriaFromQuery(id, parseQuery(location.search));
    const samePage = next.clone();
    samePage.page = vm.criteria.page.clone();
    // only the page differs (Back / Forward between pages, or between focus and bulk): show it, the criteria stay
    if (criteriaSearch(samePage) === search) vm.showPage(next.page);
    else vm.setCriteria((c) => Object.assign(c, { ...next, page: c.page, datasetId: id }));
  }, [location.search]);

  // beforeunload while a save is pending or running
  useEffect(() => {
    const onUnload = (e: BeforeUnloadEvent) => {
      if (vm.hasUnsavedWork) {
        e.preventDefault();
      }
    };
    window.addEventListener("beforeunload", onUnload);
    return () => window.removeEventListener("beforeunload", onUnload);
  }, [vm]);

  // global shortcuts
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (help || vm.guard || vm.confirmBulk || isEditable(e.target)) return;
      const mod = e.ctrlKey || e.metaKey;
      if (mod && e.key.toLowerCase() === "s") {
        e.preventDefault();
        if (vm.mode === "bulk") void vm.bulkAct("draft");
        else void vm.act("draft");
        return;
      }
      if (e.shiftKey || e.altKey || mod) return;
      if (e.key === "Enter") {
        e.preventDefault();
        if (vm.mode === "bulk") void vm.bulkAct("submitted");
        else void vm.act("submitted");
      } else if (e.key === "Backspace") {
        e.preventDefault();
        if (vm.mode === "bulk") void vm.bulkAct("discarded");
        else void vm.act("discarded");
      } else if (e.key === "ArrowRight" && vm.mode === "focus") {
        e.preventDefault();
        vm.next();
      } else if (e.key === "ArrowLeft" && vm.mode === "focus") {
        e.preventDefault();
        vm.previous();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [vm, help]);

  const dataset = settings?.dataset;
  const currentCriteria = useCallback(() => vm.criteria, [vm]);
  return (
    <AnnotationLayout
      breadcrumbs={[{ label: t("breadcrumbs.home"), to: "/" }, { label: dataset ? `${dataset.workspaceName} / ${dataset.name}` : "…" }]}
      headerActions={
        <>
          <DownloadButton criteria={currentCriteria} ownResponsesOnly={!(session.user?.isAdminOrOwner ?? false)} />
          <ReviewLinks datasetId={id} role={session.user?.role} search={location.search} />
          <button type="button" className="button button--ghost" onClick={() => setHelp(true)} aria-haspopup="dialog">
            {t("annotation.shortcuts.open")}
          </button>
        </>
      }
    >
      <div className="annotation">
        <div className="annotation__left">
          <FiltersBar vm={vm} settings={settings} />
          {vm.loading && (
            <p aria-busy="true" className="annotation__loading">
              {t("annotation.loading")}
            </p>
          )}
          {vm.failed && (
            <p role="alert" className="form-error">
              {t("annotation.loadError")}
            </p>
          )}
          {vm.failedSaves.length > 0 && (
            <ul className="failed-saves" role="alert">
              {vm.failedSaves.map((f) => (
                <li key={f.record.id} className="form-error">
                  {t("annotation.saveFailed.message", { page: f.record.page })}{" "}
                  <button type="button" className="button button--ghost" onClick={() => vm.goToFailed(f)}>
                    {t("annotation.saveFailed.goTo", { page: f.record.page })}
                  </button>
                  <button
                    type="button"
                    className="button button--ghost"
                    onClick={() => {
                      void vm.retryFailed(f);
                    }}
                  >
                    {t("annotation.saveFailed.retry")}
                  </button>
                </li>
              ))}
            </ul>
          )}
          <OutboxChoices
            datasetId={id}
            onChosen={(entry, server, choice) => {
              if (choice === "theirs") vm.adoptServerAnswer(entry.recordId, server);
            }}
          />
          {!vm.loading && !vm.failed && <ReservationsNotice reservations={reservations} />}
          {!vm.loading &&
            !vm.failed &&
            reservations.starvedBy === 0 &&
            (vm.mode === "bulk" ? <BulkView vm={vm} /> : <FocusView vm={vm} settings={settings} />)}
        </div>
        <SidePanels vm={vm} settings={settings} progress={progress} isAdmin={session.user?.isAdminOrOwner ?? false} />
      </div>
      {vm.guard && (
        <div className="guard" role="alertdialog" aria-labelledby="guard-text">
          <p id="guard-text">{t("annotation.guard.message")}</p>
          <button type="button" className="button button--primary" onClick={() => vm.ignoreGuard()}>
            {t("annotation.guard.ignore")}
          </button>
          <button type="button" className="button" aria-label={t("annotation.guard.close")} onClick={() => vm.cancelGuard()}>
            ×
          </button>
        </div>
      )}
      {help && <ShortcutsHelp onClose={() => setHelp(false)} />}
    </AnnotationLayout>
  );
});

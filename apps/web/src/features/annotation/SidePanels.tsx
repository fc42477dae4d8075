import { useState } from "react";
import { observer } from "mobx-react-lite";
import { useTranslation } from "react-i18next";
import type { DatasetSettings, Progress } from "@tessera/domain";
import type { AnnotationViewModel } from "./annotation-view-model";
import { Markdown } from "./fields/RecordFields";
import { InProgressPanel } from "./InProgressPanel";

/** Record statuses in the order the progress bar and the counts show them (codes, not texts). */
const PROGRESS_SEGMENTS = ["submitted", "draft", "discarded"] as const;
const STATUS_COUNTS = [...PROGRESS_SEGMENTS, "pending"] as const;
/** Guidelines (markdown) and progress: the user's own counts on the dataset (server metrics) and the team progress. */
export const SidePanels = observer(function SidePanels({
  vm,
  settings,
  progress,
  isAdmin = false,
}: {
  vm: AnnotationViewModel;
  settings: DatasetSettings | null;
  progress: Progress | null;
  isAdmin?: boolean;
}) {
  const { t } = useTranslation();
  const [guidelines, setGuidelines] = useState(true);
  const metrics = vm.metrics;
  const text = settings?.dataset.guidelines?.trim() ?? "";
  return (
    <aside className="annotation__side">
      <section className="panel">
        <h2>
          <button type="button" className="panel__toggle" aria-expanded={guidelines} onClick={() => setGuidelines(!guidelines)}>
            {t("annotation.guidelines.title")}
          </button>
        </h2>
        {guidelines && (text ? <Markdown text={text} /> : <p className="muted">{t("annotation.guidelines.none")}</p>)}
      </section>
      <section className="panel" aria-label={t("annotation.progress.mine")}>
        <h2>{t("annotation.progress.mine")}</h2>
        {metrics ? (
          <>
            <div
              className="my-progress"
              role="img"
              aria-label={t("annotation.progress.mineSummary", {
                percent: metrics.progress,
                responded: metrics.responded,
                total: metrics.total,
              })}
            >
              {PROGRESS_SEGMENTS.map((s) => (
                <span
                  key={s}
                  className={`my-progress__segment dot--${s}`}
                  style={{ width: `${metrics.total ? (metrics[s] / metrics.total) * 100 : 0}%` }}
                />
              ))}
            </div>
            <ul className="status-counts">
              {STATUS_COUNTS.map((s) => (
                <li key={s} data-status={s}>
                  <span className={`dot dot--${s}`} />
                  {t(`annotation.status.${s}`)} <strong>{metrics[s]}</strong>
                </li>
              ))}
            </ul>
          </>
        ) : (
          <span className="skeleton" aria-busy="true" />
        )}
        <h3>{t("annotation.progress.team")}</h3>
        {progress ? (
          <div
            className="team-progress"
            title={t("annotation.progress.teamTooltip", { completed: progress.completed, total: progress.total })}
          >
            <div
              className="team-progress__bar"
              role="progressbar"
              aria-valuemin={0}
              aria-valuemax={100}
              aria-valuenow={progress.percentCompleted}
              aria-label={t("annotation.progress.team")}
            >
              <span style={{ width: `${progress.percentCompleted}%` }} />
            </div>
            <span>
              {t("annotation.progress.completed", {
                percent: progress.percentCompleted,
                completed: progress.completed,
                total: progress.total,
              })}
            </span>
          </div>
        ) : (
          <span className="skeleton" aria-busy="true" />
        )}
        {isAdmin && <InProgressPanel datasetId={vm.datasetId} refreshKey={vm.responseEvents} />}
      </section>
    </aside>
  );
});

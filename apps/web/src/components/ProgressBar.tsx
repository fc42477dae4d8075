import { useTranslation } from "react-i18next";
import type { Progress } from "@tessera/domain";

/** Team progress: completed vs pending, percentage with 2 decimals, counts in the accessible name. */
export function ProgressBar({ progress }: { progress: Progress }) {
  const { t, i18n } = useTranslation();
  const percent = progress.percentCompleted;
  const formatted = percent.toLocaleString(i18n.language, { maximumFractionDigits: 2 });
  const label = t("home.progressLabel", { completed: progress.completed, total: progress.total, percent: formatted });
  return (
    <div className="progress" title={label}>
      <div className="progress__track" role="progressbar" aria-valuemin={0} aria-valuemax={100} aria-valuenow={percent} aria-label={label}>
        <div className="progress__bar" style={{ width: `${percent}%` }} />
      </div>
      <span className="progress__value">{formatted}%</span>
    </div>
  );
}

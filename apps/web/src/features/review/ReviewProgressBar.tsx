import { useTranslation } from "react-i18next";

/** Records reviewed (with a final answer) of those needing review. */
export function ReviewProgressBar({ reviewed, total }: { reviewed: number; total: number }) {
  const { t } = useTranslation();
  const percent = total === 0 ? 0 : Math.round((reviewed / total) * 100);
  return (
    <div className="review-progress">
      <div
        className="review-progress__bar"
        role="progressbar"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
        aria-label={t("review.progress.label")}
      >
        <span style={{ width: `${percent}%` }} />
      </div>
      <span data-testid="review-progress">{t("review.progress.text", { reviewed, total })}</span>
    </div>
  );
}

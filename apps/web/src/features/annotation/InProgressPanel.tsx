import { useCallback, useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { GetRecordsInProgressUseCase, ReleaseUserReservationsUseCase, type RecordsInProgress } from "@tessera/domain";
import { useResolve } from "../../app/container-context";

const REFRESH_MS = 15_000;

/** Admins: records in progress (reserved) beside completed and pending, per annotator, with a way to release someone's records. */
export function InProgressPanel({ datasetId, refreshKey }: { datasetId: string; refreshKey: number }) {
  const { t } = useTranslation();
  const getInProgress = useResolve(GetRecordsInProgressUseCase);
  const releaseUser = useResolve(ReleaseUserReservationsUseCase);
  const [progress, setProgress] = useState<RecordsInProgress | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const refresh = useCallback(() => {
    getInProgress
      .execute(datasetId)
      .then(setProgress)
      .catch(() => undefined);
  }, [datasetId, getInProgress]);
  useEffect(() => {
    refresh();
    const timer = setInterval(refresh, REFRESH_MS);
    return () => clearInterval(timer);
  }, [refresh, refreshKey]);
  if (!progress) return null;
  const release = (userId: string, username: string) => {
    releaseUser
      .execute(datasetId, userId)
      .then(() => {
        setNotice(t("annotation.reservations.released", { username }));
        refresh();
      })
      .catch(() => undefined);
  };
  return (
    <div className="in-progress" data-testid="records-in-progress">
      <p>
        <span className="dot dot--draft" />
        {t("annotation.reservations.inProgress")} <strong>{progress.records}</strong>
      </p>
      {progress.users.length > 0 && (
        <ul aria-label={t("annotation.reservations.byUser")} className="in-progress__users">
          {progress.users.map((u) => (
            <li key={u.userId}>
              {t("annotation.reservations.userRecords", { username: u.username, count: u.records })}{" "}
              <button
                type="button"
                className="button button--ghost"
                aria-label={t("annotation.reservations.releaseUser", { username: u.username })}
                onClick={() => release(u.userId, u.username)}
              >
                {t("annotation.reservations.release")}
              </button>
            </li>
          ))}
        </ul>
      )}
      {notice && (
        <p role="status" className="muted">
          {notice}
        </p>
      )}
    </div>
  );
}

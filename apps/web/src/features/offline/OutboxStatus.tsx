import { observer } from "mobx-react-lite";
import { useTranslation } from "react-i18next";
import { useOfflineAnswers } from "./offline-context";
import "./offline.css";

/** The header's counter of answers kept on this device (waiting, or needing the annotator's choice), with 'Send now'. */
export const OutboxStatus = observer(function OutboxStatus() {
  const { t } = useTranslation();
  const offline = useOfflineAnswers();
  const choices = offline.conflicts.length + offline.refused.length;
  if (!offline.userId) return null;
  const unavailable = offline.storageUnavailable && (
    <p className="outbox-status outbox-status--unavailable" role="alert" data-offline-storage="unavailable">
      {t("offline.storageUnavailable")}
    </p>
  );
  if (offline.waiting === 0 && choices === 0) return unavailable || null;
  return (
    <div
      className="outbox-status"
      role="status"
      aria-label={t("offline.status")}
      data-outbox-waiting={offline.waiting}
      data-outbox-choices={choices}
    >
      {unavailable}
      {offline.waiting > 0 && <span className="outbox-status__count">{t("offline.waiting", { count: offline.waiting })}</span>}
      {choices > 0 && <span className="outbox-status__choices">{t("offline.choices", { count: choices })}</span>}
      {offline.waiting > 0 && offline.online && (
        <button type="button" className="button button--ghost" onClick={() => offline.sendNow()}>
          {t("offline.sendNow")}
        </button>
      )}
    </div>
  );
});

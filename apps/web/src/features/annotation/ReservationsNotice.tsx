import { observer } from "mobx-react-lite";
import { useTranslation } from "react-i18next";
import type { QueueReservationsViewModel } from "./queue-reservations-view-model";

/** Every record left to the annotator is reserved by teammates: says so (the screen looks again until records come back). */
export const ReservationsNotice = observer(function ReservationsNotice({ reservations }: { reservations: QueueReservationsViewModel }) {
  const { t } = useTranslation();
  const teammates = reservations.starvedBy;
  if (teammates === 0) return null;
  return (
    <section className="empty-state annotation-empty reservations-notice" role="status" aria-live="polite">
      <h2>{t("annotation.reservations.restInProgress", { count: teammates })}</h2>
      <p>{t("annotation.reservations.restInProgressHint", { records: reservations.reservations?.heldByOthers.records ?? 0 })}</p>
    </section>
  );
});

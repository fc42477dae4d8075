import { useEffect, useId, useMemo } from "react";
import { observer } from "mobx-react-lite";
import { useTranslation } from "react-i18next";
import { GetRecordsInProgressUseCase, SetReservationTimeoutUseCase } from "@tessera/domain";
import { useResolve } from "../../app/container-context";
import { ReservationTimeoutViewModel } from "./reservation-timeout-view-model";

/** Info tab: how long a record handed to an annotator stays theirs without activity (issue 29). */
export const ReservationTimeoutCard = observer(function ReservationTimeoutCard({ datasetId }: { datasetId: string }) {
  const { t } = useTranslation();
  const load = useResolve(GetRecordsInProgressUseCase);
  const save = useResolve(SetReservationTimeoutUseCase);
  const vm = useMemo(() => new ReservationTimeoutViewModel(datasetId, { load, save }), [datasetId, load, save]);
  const id = useId();
  useEffect(() => {
    void vm.load();
  }, [vm]);
  if (vm.state === "loading") return null;
  const problem = vm.modified ? vm.problem : null;
  return (
    <section className="card settings-item" aria-labelledby={`${id}-title`}>
      <div className="card__title-row">
        <h2 id={`${id}-title`}>{t("datasetSettings.reservations.title")}</h2>
      </div>
      {vm.state === "failed" ? (
        <p className="form-error" role="alert">
          {t("datasetSettings.reservations.loadFailed")}
        </p>
      ) : (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void vm.save();
          }}
        >
          <div className="settings-input">
            <label htmlFor={id}>{t("datasetSettings.reservations.timeout")}</label>
            <input
              id={id}
              type="text"
              inputMode="decimal"
              value={vm.draft}
              aria-invalid={problem !== null}
              aria-describedby={`${id}-help${problem ? ` ${id}-error` : ""}`}
              onChange={(e) => vm.setDraft(e.target.value)}
            />
            <p id={`${id}-help`} className="muted settings-input__help">
              {t("datasetSettings.reservations.help")}
            </p>
            {problem && (
              <p id={`${id}-error`} className="form-error" role="alert">
                {t(`datasetSettings.reservations.problems.${problem}`, { max: vm.maxMinutes })}
              </p>
            )}
          </div>
          <div className="settings-item__actions">
            <span className="settings-item__status" role="status">
              {vm.saving
                ? t("datasetSettings.actions.saving")
                : vm.outcome === "saved"
                  ? t("datasetSettings.actions.saved")
                  : vm.outcome === "failed"
                    ? t("datasetSettings.reservations.saveFailed")
                    : ""}
            </span>
            <button type="button" className="button button--small" disabled={!vm.modified || vm.saving} onClick={() => vm.cancel()}>
              {t("datasetSettings.reservations.cancel")}
            </button>
            <button type="submit" className="button button--small button--primary" disabled={!vm.canSave}>
              {t("datasetSettings.reservations.save")}
            </button>
          </div>
        </form>
      )}
    </section>
  );
});

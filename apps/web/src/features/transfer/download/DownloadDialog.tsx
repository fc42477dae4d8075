import { useEffect, useMemo, useRef } from "react";
import { observer } from "mobx-react-lite";
import { useTranslation } from "react-i18next";
import { DOWNLOAD_SCOPES, DownloadRecordsUseCase, EXPORT_FORMATS, type RecordCriteria } from "@tessera/domain";
import { useResolve } from "../../../app/container-context";
import { DownloadViewModel } from "./download-view-model";
import "../transfer.css";

/** The annotation page's "Download" button and its dialog (format; records matching the filters or all). */
export const DownloadButton = observer(function DownloadButton({
  criteria,
  ownResponsesOnly,
}: {
  criteria: () => RecordCriteria;
  ownResponsesOnly: boolean;
}) {
  const { t } = useTranslation();
  const download = useResolve(DownloadRecordsUseCase);
  const vm = useMemo(() => new DownloadViewModel(download, criteria), [download, criteria]);
  return (
    <>
      <button type="button" className="button button--ghost" aria-haspopup="dialog" onClick={() => vm.show()}>
        {t("transfer.download.open")}
      </button>
      {vm.open && <DownloadDialog vm={vm} ownResponsesOnly={ownResponsesOnly} />}
    </>
  );
});

const DownloadDialog = observer(function DownloadDialog({ vm, ownResponsesOnly }: { vm: DownloadViewModel; ownResponsesOnly: boolean }) {
  const { t } = useTranslation();
  const ref = useRef<HTMLFormElement>(null);
  useEffect(() => {
    ref.current?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") {
        e.stopPropagation();
        vm.hide();
      }
    };
    window.addEventListener("keydown", onKey, true);
    return () => window.removeEventListener("keydown", onKey, true);
  }, [vm]);
  return (
    <div className="modal-backdrop" onClick={() => vm.hide()}>
      <form
        className="modal"
        role="dialog"
        aria-modal="true"
        aria-labelledby="download-title"
        tabIndex={-1}
        ref={ref}
        onClick={(e) => e.stopPropagation()}
        onSubmit={(e) => {
          e.preventDefault();
          void vm.start();
        }}
      >
        <h2 id="download-title">{t("transfer.download.title")}</h2>
        <fieldset className="radio-group">
          <legend>{t("transfer.download.format")}</legend>
          {EXPORT_FORMATS.map((format) => (
            <label key={format} className="radio">
              <input
                type="radio"
                name="download-format"
                value={format}
                checked={vm.format === format}
                onChange={() => vm.setFormat(format)}
              />
              {t(`transfer.download.formats.${format}`)}
            </label>
          ))}
        </fieldset>
        <fieldset className="radio-group">
          <legend>{t("transfer.download.scope")}</legend>
          {DOWNLOAD_SCOPES.map((scope) => (
            <label key={scope} className="radio">
              <input type="radio" name="download-scope" value={scope} checked={vm.scope === scope} onChange={() => vm.setScope(scope)} />
              {t(`transfer.download.scopes.${scope}`)}
            </label>
          ))}
        </fieldset>
        {ownResponsesOnly && <p>{t("transfer.download.ownOnly")}</p>}
        {vm.busy && (
          <p aria-busy="true" role="status">
            {t("transfer.download.busy")}
          </p>
        )}
        {vm.done && <p role="status">{t("transfer.download.done", { filename: vm.done.filename })}</p>}
        {vm.failed && (
          <p role="alert" className="form-error">
            {t("transfer.download.failed")}
          </p>
        )}
        <div className="download__actions">
          <button type="submit" className="button button--primary" disabled={vm.busy}>
            {t("transfer.download.submit")}
          </button>
          <button type="button" className="button" onClick={() => vm.hide()}>
            {t("transfer.download.close")}
          </button>
        </div>
      </form>
    </div>
  );
});

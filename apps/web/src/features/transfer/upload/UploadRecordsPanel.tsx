import { useEffect, useMemo } from "react";
import { observer } from "mobx-react-lite";
import { useTranslation } from "react-i18next";
import {
  CancelUploadUseCase,
  DownloadFailedRowsUseCase,
  GetUploadProgressUseCase,
  ImportUploadUseCase,
  TARGET_KINDS,
  UploadFileUseCase,
  columnType,
  type MappingSettings,
  type TargetKind,
} from "@tessera/domain";
import { useResolve } from "../../../app/container-context";
import { FileDrop } from "./FileDrop";
import { UploadViewModel } from "./upload-view-model";
import "../transfer.css";

const PREVIEW_SHOWN = 5;

const cellText = (value: unknown): string =>
  value === null || value === undefined ? "" : typeof value === "string" ? value : JSON.stringify(value);

/** A dataset's "Add records from a file" panel (owners and admins): pick or drop, preview and map, import with progress. */
export const UploadRecordsPanel = observer(function UploadRecordsPanel({
  datasetId,
  settings,
}: {
  datasetId: string;
  settings: MappingSettings;
}) {
  const { t } = useTranslation();
  const useCases = {
    upload: useResolve(UploadFileUseCase),
    importUpload: useResolve(ImportUploadUseCase),
    progress: useResolve(GetUploadProgressUseCase),
    cancel: useResolve(CancelUploadUseCase),
    failures: useResolve(DownloadFailedRowsUseCase),
  };
  const vm = useMemo(() => new UploadViewModel(useCases, datasetId, settings), [datasetId, settings]);
  useEffect(() => () => vm.dispose(), [vm]);
  const p = vm.progress;
  return (
    <section className="card upload" aria-labelledby="upload-title">
      <h2 id="upload-title">{t("transfer.upload.title")}</h2>
      <p>{t("transfer.upload.intro")}</p>
      {(vm.step === "pick" || vm.step === "uploading") && (
        <FileDrop
          disabled={vm.step === "uploading"}
          onFile={(file) => {
            void vm.pick(file);
          }}
        />
      )}
      {vm.step === "uploading" && (
        <p role="status" aria-busy="true">
          {t("transfer.upload.uploading")}
        </p>
      )}
      {vm.error !== null && (
        <p role="alert" className="form-error">
          {vm.error ? t("transfer.upload.refused", { detail: vm.error }) : t("transfer.upload.failed")}
        </p>
      )}
      {vm.preview && vm.step !== "pick" && vm.step !== "uploading" && (
        <>
          <p>{t("transfer.upload.previewOf", { filename: vm.preview.filename })}</p>
          <div className="upload__table-wrap">
            <table className="upload__table">
              <thead>
                <tr>
                  {vm.preview.columns.map((c) => (
                    <th key={c.name} scope="col">
                      {c.name}
                      <br />
                      <small>{t(`transfer.upload.types.${columnType(c)}`)}</small>
                    </th>
                  ))}
                </tr>
                <tr>
                  {vm.preview.columns.map((c) => {
                    const target = vm.targets.get(c.name) ?? { kind: "ignore" as TargetKind, name: null };
                    const names = vm.namesFor(target.kind);
                    return (
                      <td key={c.name}>
                        <select
                          aria-label={t("transfer.upload.mapAs", { column: c.name })}
                          value={target.kind}
                          disabled={vm.step !== "preview"}
                          onChange={(e) => vm.setTarget(c.name, e.target.value as TargetKind)}
                        >
                          {TARGET_KINDS.map((k) => (
                            <option key={k} value={k}>
                              {t(`transfer.upload.kinds.${k}`)}
                            </option>
                          ))}
                        </select>
                        {names.length > 0 && (
                          <select
                            aria-label={t("transfer.upload.mapTo", { column: c.name })}
                            value={target.name ?? ""}
                            disabled={vm.step !== "preview"}
                            onChange={(e) => vm.setTarget(c.name, target.kind, e.target.value)}
                          >
                            {names.map((n) => (
                              <option key={n} value={n}>
                                {n}
                              </option>
                            ))}
                          </select>
                        )}
                      </td>
                    );
                  })}
                </tr>
              </thead>
              <tbody>
                {vm.preview.rows.slice(0, PREVIEW_SHOWN).map((row, i) => (
                  <tr key={i}>
                    {vm.preview!.columns.map((c) => (
                      <td key={c.name}>{cellText(row[c.name]).slice(0, 200)}</td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {vm.step === "preview" && (
            <div className="upload__actions">
              <button
                type="button"
                className="button button--primary"
                disabled={!vm.canImport}
                onClick={() => {
                  void vm.start();
                }}
              >
                {t("transfer.upload.import")}
              </button>
              <button type="button" className="button" onClick={() => vm.reset()}>
                {t("transfer.upload.another")}
              </button>
            </div>
          )}
        </>
      )}
      {p && (vm.step === "importing" || vm.step === "done") && (
        <div className="upload__progress">
          <progress max={1} value={p.progress} aria-label={t("transfer.upload.progress")} />
          <p role="status">{t(`transfer.upload.status.${p.status}`, { stored: p.rowsStored, failed: p.rowsFailed })}</p>
          {p.error && (
            <p role="alert" className="form-error">
              {p.error}
            </p>
          )}
          {vm.step === "importing" && (
            <button
              type="button"
              className="button"
              onClick={() => {
                void vm.cancel();
              }}
            >
              {t("transfer.upload.cancel")}
            </button>
          )}
          {p.rowsFailed > 0 && (
            <button
              type="button"
              className="button button--ghost"
              onClick={() => {
                void vm.downloadFailures();
              }}
            >
              {t("transfer.upload.failedRows")}
            </button>
          )}
          {vm.step === "done" && (
            <button type="button" className="button" onClick={() => vm.reset()}>
              {t("transfer.upload.another")}
            </button>
          )}
        </div>
      )}
    </section>
  );
});

import { useEffect, useMemo, useState } from "react";
import { observer } from "mobx-react-lite";
import { useTranslation } from "react-i18next";
import { useNavigate } from "react-router";
import {
  CreateDatasetFromUploadUseCase,
  GetWorkspacesUseCase,
  UploadFileUseCase,
  creationFromUpload,
  type UploadPreview,
} from "@tessera/domain";
import { useResolve } from "../../../app/container-context";
import { paths } from "../../../app/routes";
import { InternalPageLayout } from "../../../layouts";
import { ConfigurationColumn, PreviewColumn } from "../../dataset-creation/DatasetCreationPage";
import { DatasetCreationViewModel } from "../../dataset-creation/dataset-creation-view-model";
import { FileDrop } from "./FileDrop";
import "../../dataset-settings/dataset-settings.css";
import "../../dataset-creation/dataset-creation.css";
import "../transfer.css";

/**
 * `/new-from-file`: a new dataset from a file (owners and admins). The file is uploaded and typed by
 * the server; the Hub creation page's configuration (fields, questions, metadata, workspace, name)
 * then runs on its columns, and creating the dataset imports the file as a background job.
 */
export const FileDatasetCreationPage = observer(function FileDatasetCreationPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const upload = useResolve(UploadFileUseCase);
  const getWorkspaces = useResolve(GetWorkspacesUseCase);
  const createFromUpload = useResolve(CreateDatasetFromUploadUseCase);
  const [preview, setPreview] = useState<UploadPreview | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const vm = useMemo(
    () =>
      preview
        ? new DatasetCreationViewModel(
            preview.filename,
            {
              getCreation: { execute: async () => creationFromUpload(preview) },
              getFirstRow: { execute: async () => preview.rows[0] ?? {} },
              getWorkspaces,
              create: { execute: (creation) => createFromUpload.execute(creation, preview.id) },
            },
            (type, n) => t("datasetCreation.questions.newTitle", { type: t(`datasetCreation.questions.types.${type}`), n }),
          )
        : null,
    [preview],
  );
  useEffect(() => {
    if (vm) void vm.load();
  }, [vm]);
  useEffect(() => {
    if (vm?.createdId) void navigate(paths.annotation(vm.createdId));
  }, [vm?.createdId, navigate]);

  const pick = async (file: File) => {
    setBusy(true);
    setError(null);
    try {
      setPreview(await upload.execute(file));
    } catch (e) {
      setError((e as { detail?: string }).detail ?? "");
    } finally {
      setBusy(false);
    }
  };

  const breadcrumbs = [{ label: t("breadcrumbs.home"), to: paths.home() }, { label: preview?.filename ?? t("transfer.newDataset.title") }];
  return (
    <InternalPageLayout
      breadcrumbs={breadcrumbs}
      pageHeader={<h1>{preview ? t("transfer.newDataset.heading", { filename: preview.filename }) : t("transfer.newDataset.title")}</h1>}
    >
      {!preview && (
        <section className="card upload">
          <p>{t("transfer.newDataset.text")}</p>
          <FileDrop
            disabled={busy}
            onFile={(file) => {
              void pick(file);
            }}
          />
          {busy && (
            <p role="status" aria-busy="true">
              {t("transfer.upload.uploading")}
            </p>
          )}
          {error !== null && (
            <p role="alert" className="form-error">
              {error ? t("transfer.upload.refused", { detail: error }) : t("transfer.upload.failed")}
            </p>
          )}
        </section>
      )}
      {vm?.state === "loading" && <p role="status">{t("common.loading")}</p>}
      {vm?.state === "ready" && (
        <div className="creation-layout">
          <PreviewColumn vm={vm} />
          <ConfigurationColumn vm={vm} />
        </div>
      )}
    </InternalPageLayout>
  );
});

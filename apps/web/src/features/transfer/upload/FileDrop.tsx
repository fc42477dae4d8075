import { useState, type DragEvent } from "react";
import { useTranslation } from "react-i18next";

export const UPLOAD_ACCEPT = ".csv,.tsv,.jsonl,.ndjson,.json,.parquet";

/** A drop zone with a file input (the file formats an upload takes). */
export function FileDrop({ disabled, onFile }: { disabled: boolean; onFile: (file: File) => void }) {
  const { t } = useTranslation();
  const [dragging, setDragging] = useState(false);
  const onDrop = (event: DragEvent<HTMLElement>) => {
    event.preventDefault();
    setDragging(false);
    const file = event.dataTransfer.files[0];
    if (file) onFile(file);
  };
  return (
    <label
      className={`upload__drop${dragging ? " upload__drop--over" : ""}`}
      onDragOver={(e) => {
        e.preventDefault();
        setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={onDrop}
    >
      <span>{t("transfer.upload.drop")}</span>
      <input
        type="file"
        accept={UPLOAD_ACCEPT}
        disabled={disabled}
        onChange={(e) => {
          const file = e.target.files?.[0];
          if (file) onFile(file);
        }}
      />
    </label>
  );
}

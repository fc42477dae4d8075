import { useMemo } from "react";
import { observer } from "mobx-react-lite";
import type { DatasetRecord } from "@tessera/domain";
import { FormController } from "../annotation/form-controller";
import { RecordFields } from "../annotation/fields/RecordFields";
import { QuestionsForm } from "../annotation/questions/QuestionsForm";
import "../annotation/annotation.css";

/** The live preview of a record: its fields and/or its question form, with the annotation page's components. */
export const RecordPreview = observer(function RecordPreview({
  record,
  show = "both",
}: {
  record: DatasetRecord;
  show?: "fields" | "questions" | "both";
}) {
  const form = useMemo(() => new FormController(), [record]);
  form.track();
  return (
    <div className="record-preview">
      {show !== "questions" && <RecordFields record={record} form={form} />}
      {show !== "fields" && <QuestionsForm record={record} form={form} />}
    </div>
  );
});

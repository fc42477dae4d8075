import type { DatasetSchema } from "../../records/dataset-schema.js";
import { visibleForAnnotators, type RecordViewer } from "../../records/visibility.js";

/**
 * What an export shows of a dataset's records, from the central record visibility rule
 * (records/visibility.ts: owners and admin members see every response and metadata key; annotators
 * only their own responses and the metadata properties visible for annotators, no extra keys).
 */
export interface RecordView {
  /** null: every user's responses; otherwise only this user's. */
  responsesOf: string | null;
  /** Whether the reviewers' final answers are shown (only to those who see every response: they settle others' work). */
  finalAnswers: boolean;
  /** Every metadata key is visible (owners and admins). */
  allMetadata: boolean;
  /** Whether the value of a metadata key is visible (defined property or extra key). */
  metadataVisible(key: string): boolean;
}

export function recordViewFor(viewer: RecordViewer, schema: DatasetSchema): RecordView {
  return {
    responsesOf: viewer.responses === "all" ? null : viewer.userId,
    finalAnswers: viewer.responses === "all",
    allMetadata: viewer.metadata === "all",
    metadataVisible: (key) => {
      if (viewer.metadata === "all") return true;
      const property = schema.metadataByName.get(key);
      return property !== undefined && visibleForAnnotators(property.allowedRoles);
    },
  };
}

import type { UserRow } from "../../auth/authenticate.js";
import type { DatasetSchema } from "../../records/dataset-schema.js";

/**
 * What a user may see of a dataset's records in an export, in one place so a central rule module
 * ("what an annotator may see of a record") can replace it: owners and admins of the workspace see
 * every response and every metadata key; annotators see only their own responses and the metadata
 * properties whose policy lists annotators (contract 1.4, as on `/me/.../records/search`).
 */
export interface RecordView {
  /** null: every user's responses; otherwise only this user's. */
  responsesOf: string | null;
  /** Whether the value of a metadata key is visible (defined property or extra key). */
  metadataVisible(key: string): boolean;
}

export function recordViewFor(user: UserRow, schema: DatasetSchema): RecordView {
  if (user.role === "owner" || user.role === "admin") return { responsesOf: null, metadataVisible: () => true };
  return {
    responsesOf: user.id,
    metadataVisible: (key) => schema.metadataByName.get(key)?.allowedRoles.includes(user.role) ?? false,
  };
}

import type { Kysely } from "kysely";
import type { DB } from "../../db/schema.js";
import { unprocessable } from "../../http/errors.js";
import { now } from "../../clock.js";
import type { FieldSettings, FieldSettingsUpdate } from "../fields.js";
import type { FieldRow } from "./find-field.js";

export interface FieldChanges {
  title?: string;
  settings?: FieldSettingsUpdate;
}

/** Changes a field's title or settings (its type never changes: 422). Returns the updated row. */
export async function updateField(db: Kysely<DB>, field: FieldRow, input: FieldChanges): Promise<FieldRow> {
  const changes: Partial<FieldRow> = { updated_at: now() };
  if (input.title !== undefined) changes.title = input.title;
  if (input.settings !== undefined) {
    const stored = JSON.parse(field.settings) as FieldSettings;
    if (stored.type !== input.settings.type) {
      throw unprocessable(`Field type cannot be changed. Expected '${stored.type}' but got '${input.settings.type}'`);
    }
    changes.settings = JSON.stringify({ ...stored, ...input.settings });
  }
  await db.updateTable("fields").set(changes).where("id", "=", field.id).execute();
  return { ...field, ...changes };
}

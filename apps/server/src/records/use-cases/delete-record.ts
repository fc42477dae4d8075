import type { UserRow } from "../../auth/authenticate.js";
import type { DatasetRow } from "../../auth/policies.js";
import type { ChangeDeps } from "../../use-case-deps.js";
import type { RecordOut, RecordRow } from "../read.js";
import { readRecord } from "./read-record.js";

/** Deletes a record (its responses, suggestions and vectors cascade). Returns it as it was, as the user could see it. */
export async function deleteRecord({ db, events }: ChangeDeps, user: UserRow, dataset: DatasetRow, record: RecordRow): Promise<RecordOut> {
  const out = await readRecord(db, user, dataset, record);
  await db.deleteFrom("records").where("id", "=", record.id).execute();
  events.emit("record.deleted", { ids: [record.id] });
  return out;
}

import { randomUUID } from "node:crypto";
import { type Kysely, sql } from "kysely";
import type { DB } from "../../db/schema.js";
import type { DatasetRow } from "../../auth/policies.js";
import { writeUnique } from "../../db/introspect.js";
import { conflict, unprocessable } from "../../http/errors.js";
import { now } from "../../clock.js";
import { pyList } from "../common.js";
import type { FieldSettings } from "../fields.js";
import type { QuestionSettings } from "../questions.js";
import type { QuestionRow } from "./find-question.js";
import { settingNameTaken } from "../setting-name-taken.js";

export interface QuestionInput {
  name: string;
  title: string;
  description?: string | null;
  required?: boolean | null;
  settings: QuestionSettings;
}

const duplicateName = (name: string, datasetId: string) =>
  conflict(`Question with name \`${name}\` already exists for dataset with id \`${datasetId}\``);

/** Span questions must point at a text field of the dataset not used by another span question. */
async function validateSpanField(db: Kysely<DB>, datasetId: string, settings: QuestionSettings): Promise<void> {
  if (settings.type !== "span") return;
  const fields = await db
    .selectFrom("fields")
    .select(["name", "settings"])
    .where("dataset_id", "=", datasetId)
    .orderBy("inserted_at")
    .orderBy(sql`rowid`)
    .execute();
  const textFields = fields.filter((f) => (JSON.parse(f.settings) as FieldSettings).type === "text").map((f) => f.name);
  if (!textFields.includes(settings.field)) {
    throw unprocessable(`'${settings.field}' is not a valid field name.\nValid field names are ${pyList(textFields)}`);
  }
  const questions = await db.selectFrom("questions").select(["id", "settings"]).where("dataset_id", "=", datasetId).execute();
  for (const q of questions) {
    const s = JSON.parse(q.settings) as QuestionSettings;
    if (s.type === "span" && s.field === settings.field)
      throw unprocessable(`'${settings.field}' is already used by span question with id '${q.id}'`);
  }
}

/** Adds a question to a draft dataset (422 once published or for a bad span field, 409 for a taken name). */
export async function createQuestion(db: Kysely<DB>, dataset: DatasetRow, input: QuestionInput): Promise<QuestionRow> {
  if (dataset.status === "ready") throw unprocessable("questions cannot be created for a published dataset");
  if (await settingNameTaken(db, "questions", dataset.id, input.name)) throw duplicateName(input.name, dataset.id);
  await validateSpanField(db, dataset.id, input.settings);
  const timestamp = now();
  const row: QuestionRow = {
    id: randomUUID(),
    dataset_id: dataset.id,
    name: input.name,
    title: input.title,
    description: input.description ?? null,
    required: input.required === false ? 0 : 1,
    settings: JSON.stringify(input.settings),
    inserted_at: timestamp,
    updated_at: timestamp,
  };
  await writeUnique(
    () => db.insertInto("questions").values(row).execute(),
    () => duplicateName(input.name, dataset.id),
  );
  return row;
}

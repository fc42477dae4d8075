import { randomUUID } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { type Kysely, type Selectable, sql } from "kysely";
import { z } from "zod";
import type { AppContext } from "../context.js";
import type { DB, QuestionsTable } from "../db/schema.js";
import type { UserRow } from "../auth/authenticate.js";
import { conflict, notFound, parse, unprocessable } from "../http/errors.js";
import { pathIds } from "../http/params.js";
import { questionOut } from "../http/serializers.js";
import { datasetFor, type DatasetRow } from "../auth/policies.js";
import { isUniqueViolation } from "../db/introspect.js";
import { descriptionSchema, pyList, rejectNullKeys, strictNameSchema, titleSchema } from "../settings/common.js";
import type { FieldSettings } from "../settings/fields.js";
import {
  applyQuestionSettingsUpdate,
  QuestionSettingsCreateSchema,
  QuestionSettingsUpdateSchema,
  type QuestionSettings,
} from "../settings/questions.js";
import { now } from "../clock.js";

const QuestionCreate = z.object({
  name: strictNameSchema,
  title: titleSchema,
  description: descriptionSchema.nullable().optional(),
  required: z.boolean().nullable().optional(),
  settings: QuestionSettingsCreateSchema,
});

/** `name` is accepted and ignored: responses are keyed by question name, so renaming is not supported. */
const QuestionUpdate = z.object({
  title: titleSchema.optional(),
  description: descriptionSchema.nullable().optional(),
  required: z.boolean().optional(),
  settings: QuestionSettingsUpdateSchema.optional(),
});

export type QuestionRow = Selectable<QuestionsTable>;

/** Loads a question (404 ``Question with id `X` not found``) and checks access to its dataset. */
export async function questionFor(
  db: Kysely<DB>,
  user: UserRow,
  questionId: string,
  access: "read" | "admin",
): Promise<{ question: QuestionRow; dataset: DatasetRow }> {
  const question = await db.selectFrom("questions").selectAll().where("id", "=", questionId).executeTakeFirst();
  if (!question) throw notFound(`Question with id \`${questionId}\` not found`);
  return { question, dataset: await datasetFor(db, user, question.dataset_id, access) };
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

/** Questions (contract 3.6). */
export function questionsRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get("/api/v1/datasets/:dataset_id/questions", async (request) => {
    const user = await ctx.currentUser(request);
    const { dataset_id } = pathIds(request, "dataset_id");
    const dataset = await datasetFor(ctx.db, user, dataset_id, "read");
    const questions = await ctx.db
      .selectFrom("questions")
      .selectAll()
      .where("dataset_id", "=", dataset.id)
      .orderBy("inserted_at")
      .orderBy(sql`rowid`)
      .execute();
    return { items: questions.map(questionOut) };
  });

  app.post("/api/v1/datasets/:dataset_id/questions", async (request, reply) => {
    const user = await ctx.currentUser(request);
    const { dataset_id } = pathIds(request, "dataset_id");
    const body = parse(QuestionCreate, request.body);
    const dataset = await datasetFor(ctx.db, user, dataset_id, "admin");
    if (dataset.status === "ready") throw unprocessable("questions cannot be created for a published dataset");
    const taken = await ctx.db
      .selectFrom("questions")
      .select("id")
      .where("dataset_id", "=", dataset.id)
      .where("name", "=", body.name)
      .executeTakeFirst();
    if (taken) throw duplicateName(body.name, dataset.id);
    await validateSpanField(ctx.db, dataset.id, body.settings);
    const timestamp = now();
    const row: QuestionRow = {
      id: randomUUID(),
      dataset_id: dataset.id,
      name: body.name,
      title: body.title,
      description: body.description ?? null,
      required: body.required === false ? 0 : 1,
      settings: JSON.stringify(body.settings),
      inserted_at: timestamp,
      updated_at: timestamp,
    };
    try {
      await ctx.db.insertInto("questions").values(row).execute();
    } catch (error) {
      if (isUniqueViolation(error)) throw duplicateName(body.name, dataset.id);
      throw error;
    }
    return reply.status(201).send(questionOut(row));
  });

  app.patch("/api/v1/questions/:question_id", async (request) => {
    const user = await ctx.currentUser(request);
    const { question_id } = pathIds(request, "question_id");
    rejectNullKeys(request.body, ["name", "title", "required", "settings"]);
    const body = parse(QuestionUpdate, request.body);
    const { question } = await questionFor(ctx.db, user, question_id, "admin");
    const changes: Partial<QuestionRow> = { updated_at: now() };
    if (body.title !== undefined) changes.title = body.title;
    if (body.description !== undefined) changes.description = body.description;
    if (body.required !== undefined) changes.required = body.required ? 1 : 0;
    if (body.settings !== undefined) {
      const result = applyQuestionSettingsUpdate(JSON.parse(question.settings) as QuestionSettings, body.settings);
      if ("error" in result) throw unprocessable(result.error);
      changes.settings = JSON.stringify(result.settings);
    }
    await ctx.db.updateTable("questions").set(changes).where("id", "=", question.id).execute();
    return questionOut({ ...question, ...changes });
  });

  app.delete("/api/v1/questions/:question_id", async (request) => {
    const user = await ctx.currentUser(request);
    const { question_id } = pathIds(request, "question_id");
    const { question, dataset } = await questionFor(ctx.db, user, question_id, "admin");
    if (dataset.status === "ready") throw unprocessable("questions cannot be deleted for a published dataset");
    await ctx.db.deleteFrom("questions").where("id", "=", question.id).execute();
    return questionOut(question);
  });
}

import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { AppContext } from "../context.js";
import { parse } from "../http/errors.js";
import { pathIds } from "../http/params.js";
import { questionOut } from "../http/serializers.js";
import { datasetFor } from "../auth/policies.js";
import { descriptionSchema, rejectNullKeys, strictNameSchema, titleSchema } from "../settings/common.js";
import { QuestionSettingsCreateSchema, QuestionSettingsUpdateSchema } from "../settings/questions.js";
import { findQuestion } from "../settings/use-cases/find-question.js";
import { listQuestions } from "../settings/use-cases/list-questions.js";
import { createQuestion } from "../settings/use-cases/create-question.js";
import { updateQuestion } from "../settings/use-cases/update-question.js";
import { deleteQuestion } from "../settings/use-cases/delete-question.js";

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

/** Questions (contract 3.6). */
export function questionsRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get("/api/v1/datasets/:dataset_id/questions", async (request) => {
    const user = await ctx.currentUser(request);
    const { dataset_id } = pathIds(request, "dataset_id");
    const dataset = await datasetFor(ctx.db, user, dataset_id, "read");
    return { items: (await listQuestions(ctx.db, dataset.id)).map(questionOut) };
  });

  app.post("/api/v1/datasets/:dataset_id/questions", async (request, reply) => {
    const user = await ctx.currentUser(request);
    const { dataset_id } = pathIds(request, "dataset_id");
    const body = parse(QuestionCreate, request.body);
    const dataset = await datasetFor(ctx.db, user, dataset_id, "admin");
    return reply.status(201).send(questionOut(await createQuestion(ctx.db, dataset, body)));
  });

  app.patch("/api/v1/questions/:question_id", async (request) => {
    const user = await ctx.currentUser(request);
    const { question_id } = pathIds(request, "question_id");
    rejectNullKeys(request.body, ["name", "title", "required", "settings"]);
    const body = parse(QuestionUpdate, request.body);
    const { question } = await findQuestion(ctx.db, user, question_id, "admin");
    return questionOut(await updateQuestion(ctx.db, question, body));
  });

  app.delete("/api/v1/questions/:question_id", async (request) => {
    const user = await ctx.currentUser(request);
    const { question_id } = pathIds(request, "question_id");
    const { question, dataset } = await findQuestion(ctx.db, user, question_id, "admin");
    await deleteQuestion(ctx.db, question, dataset);
    return questionOut(question);
  });
}
